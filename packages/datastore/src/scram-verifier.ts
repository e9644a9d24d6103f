import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

/**
 * PostgreSQL's stored form of a SCRAM-SHA-256 password (RFC 7677; ASCII passwords need no SASLprep),
 * for `ALTER ROLE … PASSWORD '<verifier>'`: the server stores it as given, so the password itself
 * never reaches a server log. The verifier holds only base64, digits, '$' and ':', safe in a literal.
 */
export function scramVerifier(password: string): string {
  const iterations = 4096;
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}
