import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, scryptSync } from "node:crypto";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

/** A 32-byte AES-256-GCM key that encrypts secrets at rest (connection passwords and the like). */
export type SecretKey = Buffer & { readonly __secretKey: unique symbol };

export interface SecretKeySource {
  /** DBMON_SECRET: a passphrase shared by every process on the datastore. */
  secret?: string | undefined;
  /** Where the generated secret file lives when no passphrase is given. */
  dataDir: string;
}

export class SecretError extends Error {
  override name = "SecretError";
}

/** Name of the generated secret file inside the data directory. */
export const SECRET_FILE_NAME = "secret.key";

const FORMAT_PREFIX = "v1:";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const SCRYPT_SALT = "dbmon secret key v1";
const HKDF_INFO = "dbmon secret key v1";

/**
 * The key from DBMON_SECRET when set (scrypt, because a passphrase may be weak), otherwise from a
 * random secret file in the data directory, created with mode 0600 on first start. Every process that
 * shares a datastore must load the same key: on several hosts that means setting DBMON_SECRET.
 */
export async function loadSecretKey(source: SecretKeySource): Promise<SecretKey> {
  if (source.secret !== undefined && source.secret !== "") {
    return scryptSync(source.secret, SCRYPT_SALT, KEY_BYTES, {
      N: 1 << 15,
      r: 8,
      p: 1,
      maxmem: 64 << 20,
    }) as SecretKey;
  }
  const material = await loadOrCreateSecretFile(resolve(source.dataDir));
  return Buffer.from(hkdfSync("sha256", material, Buffer.alloc(0), HKDF_INFO, KEY_BYTES)) as SecretKey;
}

async function loadOrCreateSecretFile(dataDir: string): Promise<Buffer> {
  const file = join(dataDir, SECRET_FILE_NAME);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    // `wx`: when two processes start at once, one creates the file and the other reads it.
    await writeFile(file, `${randomBytes(KEY_BYTES).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw error;
    }
  }
  const mode = (await stat(file)).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new SecretError(
      `The secret file ${file} is readable by other users (mode ${mode.toString(8)}); run chmod 600 on it`,
    );
  }
  const material = Buffer.from((await readFile(file, "utf8")).trim(), "base64");
  if (material.length < KEY_BYTES) {
    throw new SecretError(`The secret file ${file} does not hold a ${KEY_BYTES}-byte secret`);
  }
  return material;
}

/** Encrypts with a fresh random nonce: `v1:` + base64(nonce ‖ ciphertext ‖ tag). */
export function encryptSecret(key: SecretKey, plaintext: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return FORMAT_PREFIX + Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString("base64");
}

/** Decrypts what `encryptSecret` produced; a wrong key or any altered byte throws `SecretError`. */
export function decryptSecret(key: SecretKey, stored: string): string {
  if (!stored.startsWith(FORMAT_PREFIX)) {
    throw new SecretError("The encrypted secret has an unknown format");
  }
  const raw = Buffer.from(stored.slice(FORMAT_PREFIX.length), "base64");
  if (raw.length < NONCE_BYTES + TAG_BYTES) {
    throw new SecretError("The encrypted secret is truncated");
  }
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE_BYTES));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    const plaintext = Buffer.concat([
      decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return plaintext.toString("utf8");
  } catch {
    throw new SecretError("The encrypted secret cannot be decrypted: wrong key or altered data");
  }
}
