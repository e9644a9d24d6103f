import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, loadSecretKey, SECRET_FILE_NAME, SecretError } from "../src/index.js";

describe("secrets", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "dbmon-secrets-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("round-trips a password, with a fresh nonce each time", async () => {
    const key = await loadSecretKey({ secret: "correct horse battery staple", dataDir: dir });
    const first = encryptSecret(key, "pässwörd");
    const second = encryptSecret(key, "pässwörd");
    expect(first).not.toBe(second);
    expect(first).not.toContain("pässwörd");
    expect(decryptSecret(key, first)).toBe("pässwörd");
    expect(decryptSecret(key, second)).toBe("pässwörd");
  });

  it("derives the same key from the same DBMON_SECRET, another from another", async () => {
    const a = await loadSecretKey({ secret: "one", dataDir: dir });
    const again = await loadSecretKey({ secret: "one", dataDir: dir });
    const b = await loadSecretKey({ secret: "two", dataDir: dir });
    expect(a.equals(again)).toBe(true);
    expect(a.equals(b)).toBe(false);
  });

  it("detects tampering anywhere in the stored value", async () => {
    const key = await loadSecretKey({ secret: "s", dataDir: dir });
    const stored = encryptSecret(key, "secret password");
    const raw = Buffer.from(stored.slice(3), "base64");
    for (const index of [0, 12, raw.length - 1]) {
      const altered = Buffer.from(raw);
      altered[index] = (altered[index] ?? 0) ^ 1;
      expect(() => decryptSecret(key, `v1:${altered.toString("base64")}`)).toThrow(SecretError);
    }
    expect(() => decryptSecret(key, "v1:AAAA")).toThrow(SecretError);
    expect(() => decryptSecret(key, "plaintext")).toThrow(SecretError);
  });

  it("refuses to decrypt with a wrong key", async () => {
    const key = await loadSecretKey({ secret: "right", dataDir: dir });
    const wrong = await loadSecretKey({ secret: "wrong", dataDir: dir });
    expect(() => decryptSecret(wrong, encryptSecret(key, "x"))).toThrow(
      "The encrypted secret cannot be decrypted: wrong key or altered data",
    );
  });

  it("without DBMON_SECRET creates a 0600 secret file once and keeps using it", async () => {
    const dataDir = join(dir, "data");
    const [first, concurrent] = await Promise.all([loadSecretKey({ dataDir }), loadSecretKey({ dataDir })]);
    expect(first.equals(concurrent)).toBe(true);
    const file = join(dataDir, SECRET_FILE_NAME);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const content = await readFile(file, "utf8");
    const later = await loadSecretKey({ secret: "", dataDir });
    expect(later.equals(first)).toBe(true);
    expect(await readFile(file, "utf8")).toBe(content);
    expect(decryptSecret(later, encryptSecret(first, "kept"))).toBe("kept");
  });

  it("refuses a secret file that other users can read", async () => {
    const dataDir = join(dir, "loose");
    await loadSecretKey({ dataDir });
    await writeFile(join(dataDir, SECRET_FILE_NAME), `${Buffer.alloc(32, 1).toString("base64")}\n`, {
      mode: 0o644,
    });
    await chmod(join(dataDir, SECRET_FILE_NAME), 0o644);
    await expect(loadSecretKey({ dataDir })).rejects.toThrow(/readable by other users/);
  });
});
