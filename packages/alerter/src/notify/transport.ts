import type { LookupAddress } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { HostPolicy } from "@dbmon/monitoring";
import { createTransport } from "nodemailer";
import type { Channel } from "./channel.js";

export interface Delivery {
  ok: boolean;
  responseCode?: number;
  error?: string;
}

export interface Message {
  /** JSON body for Slack, Mattermost and webhooks. */
  json: unknown;
  subject: string;
  html: string;
  text: string;
}

/** A refusal before anything is sent (configuration or host policy), with the reference's wording. */
export class ChannelConfigError extends Error {
  override name = "ChannelConfigError";
}

const TIMEOUT_MS = 30_000;

/** How much of a receiver's answer is read: only its first 500 characters are ever kept. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** A URL to send to, with the addresses its host was vetted to: the only ones connected to. */
interface VettedUrl {
  url: URL;
  addresses: string[];
}

/**
 * Resolves the URL's host once and checks every address with the policy. The request then connects
 * to those addresses (see `pinnedLookup`), never resolving the name again: a DNS answer that changes
 * between the check and the connection (rebinding) cannot lead it elsewhere.
 */
async function vettedUrl(raw: string, policy: HostPolicy, refusal: string): Promise<VettedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ChannelConfigError(refusal);
  }
  const addresses =
    url.protocol === "https:" || url.protocol === "http:" ? await policy.vet(url.hostname) : undefined;
  if (!addresses) {
    throw new ChannelConfigError(refusal);
  }
  return { url, addresses };
}

/** A `lookup` for node:http that answers with the vetted addresses only. */
function pinnedLookup(addresses: string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as (error: null, addresses: LookupAddress[]) => void)(null, entries);
    } else {
      const [first] = entries;
      (callback as (error: null, address: string, family: number) => void)(
        null,
        first?.address ?? "",
        first?.family ?? 4,
      );
    }
  };
}

function authHeaders(channel: Channel): Record<string, string> {
  const credentials = channel.authCredentials ?? "";
  switch (channel.authType) {
    case "basic":
      return { authorization: `Basic ${Buffer.from(credentials).toString("base64")}` };
    case "bearer":
      return { authorization: `Bearer ${credentials}` };
    case "api_key": {
      const colon = credentials.indexOf(":");
      return colon > 0 ? { [credentials.slice(0, colon).trim()]: credentials.slice(colon + 1).trim() } : {};
    }
    default:
      return {};
  }
}

/**
 * Sends one request to a vetted URL, connecting only to its vetted addresses (TLS still checks the
 * host name), following no redirect, and reading at most MAX_RESPONSE_BYTES of the answer.
 */
async function post(
  target: VettedUrl,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
): Promise<{ status: number; body: string }> {
  const { url, addresses } = target;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: init.method,
        headers:
          init.body === undefined
            ? init.headers
            : { ...init.headers, "content-length": Buffer.byteLength(init.body) },
        lookup: pinnedLookup(addresses),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let received = 0;
        const finish = () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8").slice(0, 500),
          });
        response.on("data", (chunk: Buffer) => {
          const room = MAX_RESPONSE_BYTES - received;
          chunks.push(chunk.subarray(0, Math.max(0, room)));
          received += chunk.length;
          if (received >= MAX_RESPONSE_BYTES) {
            // Enough for the error message: the rest is not read.
            response.destroy();
            finish();
          }
        });
        response.on("end", finish);
        response.on("error", finish);
      },
    );
    request.on("error", reject);
    request.end(init.body);
  });
}

/**
 * Sends one message through a channel. Configuration problems and refused hosts throw
 * ChannelConfigError; a receiver's refusal or a network failure is an unsuccessful Delivery.
 */
export async function deliver(
  channel: Channel,
  message: Message,
  policy: HostPolicy,
  recipients: string[] = channel.recipients,
): Promise<Delivery> {
  switch (channel.channelType) {
    case "slack":
    case "mattermost": {
      if (!channel.webhookUrl) {
        throw new ChannelConfigError("Webhook URL is not configured for this channel");
      }
      const url = await vettedUrl(channel.webhookUrl, policy, "Invalid webhook host");
      return attempt(async () => {
        const { status, body } = await post(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(message.json),
        });
        // Incoming webhooks answer exactly 200 when they accepted the message.
        return status === 200 ? { ok: true, responseCode: status } : failure(status, body);
      });
    }
    case "webhook": {
      if (!channel.endpointUrl) {
        throw new ChannelConfigError("Endpoint URL is not configured for this channel");
      }
      const url = await vettedUrl(channel.endpointUrl, policy, "Invalid endpoint host");
      const method = channel.httpMethod.toUpperCase();
      return attempt(async () => {
        const { status, body } = await post(url, {
          method,
          headers: {
            ...(method === "GET" ? {} : { "content-type": "application/json" }),
            ...channel.headers,
            ...authHeaders(channel),
          },
          body: method === "GET" ? undefined : JSON.stringify(message.json),
        });
        return status >= 200 && status < 300 ? { ok: true, responseCode: status } : failure(status, body);
      });
    }
    case "email": {
      if (!channel.smtpHost) {
        throw new ChannelConfigError("SMTP host is not configured for this channel");
      }
      if (!channel.fromAddress) {
        throw new ChannelConfigError("From address is not configured for this channel");
      }
      if (recipients.length === 0) {
        throw new ChannelConfigError(
          "No recipients available. Provide a recipient_email or add enabled recipients to the channel.",
        );
      }
      // Connect to the vetted address, never to the name again (DNS rebinding); TLS checks the name.
      const [address] = (await policy.vet(channel.smtpHost)) ?? [];
      if (!address) {
        throw new ChannelConfigError("Invalid SMTP host");
      }
      // With smtp_use_tls, TLS is required on every port: implicit TLS on 465, STARTTLS elsewhere, and
      // a server that does not offer STARTTLS fails the send rather than receiving the message (and
      // the SMTP password) in plain text.
      const implicitTls = channel.smtpUseTls && channel.smtpPort === 465;
      const name = channel.smtpHost.trim().replace(/^\[(.*)\]$/, "$1");
      const transport = createTransport({
        host: address,
        port: channel.smtpPort,
        secure: implicitTls,
        requireTLS: channel.smtpUseTls && !implicitTls,
        ignoreTLS: !channel.smtpUseTls,
        tls: { minVersion: "TLSv1.2", ...(isIP(name) ? {} : { servername: name }) },
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
        auth:
          channel.smtpUsername && channel.smtpPassword
            ? { user: channel.smtpUsername, pass: channel.smtpPassword }
            : undefined,
      });
      return attempt(async () => {
        try {
          await transport.sendMail({
            from: channel.fromName
              ? { name: channel.fromName, address: channel.fromAddress as string }
              : (channel.fromAddress as string),
            to: recipients,
            subject: message.subject,
            html: message.html,
            text: message.text,
          });
          return { ok: true };
        } finally {
          transport.close();
        }
      });
    }
  }
}

function failure(status: number, body: string): Delivery {
  return { ok: false, responseCode: status, error: `HTTP ${status}${body ? `: ${body}` : ""}` };
}

async function attempt(send: () => Promise<Delivery>): Promise<Delivery> {
  try {
    return await send();
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
