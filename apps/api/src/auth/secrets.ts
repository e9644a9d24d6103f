import { createHash, randomBytes } from "node:crypto";
import { type Algorithm, hash, verify } from "@node-rs/argon2";
import { dictionary } from "@zxcvbn-ts/language-common";

/** 32 random bytes, URL-safe base64 with padding (44 characters), as session and service tokens. */
export function generateToken(): string {
  return randomBytes(32).toString("base64").replaceAll("+", "-").replaceAll("/", "_");
}

/** Tokens are stored and looked up only as this digest. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** `Algorithm.Argon2id` (a const enum, which isolated modules cannot read). */
const ARGON2ID = 2 as Algorithm;

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

/**
 * An Argon2id hash (of a random string nobody knows) with the same parameters as real ones: checking
 * a password for an unknown user against it costs what a wrong password costs.
 */
const UNKNOWN_USER_HASH =
  "$argon2id$v=19$m=19456,t=2,p=1$PrlSQ+Nj5pPwrX3W8o5vvQ$uuFhKxIBh2H6V43zdwwK62Rp6GfS5vSO16S7tS5up/U";

/** Verifies a password; `null` stands for "no such user" and still spends the same time. */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  const ok = await verify(storedHash ?? UNKNOWN_USER_HASH, password).catch(() => false);
  return storedHash !== null && ok;
}

export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_BYTES = 1024;

/**
 * The password policy: at least 12 characters and not one of the ~49 000 common passwords of the
 * zxcvbn-ts list (compared trimmed, NFKC-normalised and lower-cased). Returns the refusal or null.
 */
export function passwordProblem(password: string, commonPasswords: ReadonlySet<string>): string | null {
  const problems: string[] = [];
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    problems.push(`must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) {
    problems.push(`must be at most ${MAX_PASSWORD_BYTES} bytes`);
  }
  if (problems.length > 0) {
    return `Password does not meet length requirements: ${problems.join("; ")}`;
  }
  if (commonPasswords.has(password.normalize("NFKC").trim().toLowerCase())) {
    return "Password is too common; choose a less predictable password";
  }
  return null;
}

/** Builds the common-password set (a one-off cost of a few milliseconds). */
export function loadCommonPasswords(): ReadonlySet<string> {
  const list = dictionary["passwords-common"] as readonly string[] | undefined;
  if (!list) {
    throw new Error("The common-password list of @zxcvbn-ts/language-common is missing");
  }
  return new Set(list.map((entry) => entry.toLowerCase()));
}
