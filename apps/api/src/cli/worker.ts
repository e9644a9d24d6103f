import { type Datastore, loadSecretKey, openDatastore, type SecretKey } from "@dbmon/datastore";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";

/** What a standalone worker (collector, alerter) needs: the datastore and the key for secrets. */
export async function openWorker(
  config: Config,
  logger: Logger,
): Promise<{ datastore: Datastore; secretKey: SecretKey }> {
  const datastore = await openDatastore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    embeddedPort: config.embeddedPort,
    logger,
  });
  try {
    return { datastore, secretKey: await loadSecretKey({ secret: config.secret, dataDir: config.dataDir }) };
  } catch (error) {
    await datastore.close();
    throw error;
  }
}
