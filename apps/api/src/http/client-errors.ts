import type { Server } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Requests Node's HTTP parser refuses before any handler runs (headers or URL too long, malformed
 * request lines) are answered in the API's own shape (decision D1: every error is JSON) instead of
 * Node's bare text, and the socket is closed since the rest of its stream cannot be trusted.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
    const status = tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request";
    const body = JSON.stringify({ error: tooLarge ? "Request headers too large" : "Malformed request" });
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
