import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { isAbsolute, relative, sep } from "node:path";

/** The largest certificate or key file read: a CA bundle is a few hundred KiB at most. */
export const MAX_SSL_FILE_BYTES = 1024 * 1024;

/** Why an `ssl_*_path` cannot be used; the message names the field and the reason. */
export class SslFileError extends Error {
  override name = "SslFileError";
}

/**
 * Reads a certificate or key file a connection names, only from the operator's directory
 * (DBMON_SSL_DIR): after symbolic links are resolved it must lie inside it, be a regular file and
 * hold at most MAX_SSL_FILE_BYTES. Opened without blocking, so a FIFO or device never hangs the
 * process, and read no further than the cap, so `/dev/zero` never fills memory.
 */
export async function readSslFile(
  field: string,
  path: string,
  directory: string | undefined,
): Promise<Buffer> {
  const refuse = (reason: string) => new SslFileError(`Invalid ${field}: ${reason}`);
  if (!directory) {
    throw refuse("files are allowed only inside DBMON_SSL_DIR, which is not set");
  }
  if (!isAbsolute(path)) {
    throw refuse("must be an absolute path");
  }
  let resolved: string;
  let root: string;
  try {
    [resolved, root] = await Promise.all([realpath(path), realpath(directory)]);
  } catch {
    throw refuse("no such file");
  }
  const inside = relative(root, resolved);
  if (inside === "" || inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside)) {
    throw refuse("must be a file inside DBMON_SSL_DIR");
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(resolved, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    throw refuse("cannot be read");
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw refuse("not a regular file");
    }
    if (stat.size > MAX_SSL_FILE_BYTES) {
      throw refuse(`larger than ${MAX_SSL_FILE_BYTES} bytes`);
    }
    const buffer = Buffer.alloc(MAX_SSL_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) {
        break;
      }
      length += bytesRead;
    }
    if (length > MAX_SSL_FILE_BYTES) {
      throw refuse(`larger than ${MAX_SSL_FILE_BYTES} bytes`);
    }
    return Buffer.from(buffer.subarray(0, length));
  } finally {
    await handle.close();
  }
}
