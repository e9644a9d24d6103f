import type { HostPolicy } from "@dbmon/datastore";
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

async function checkedUrl(raw: string, policy: HostPolicy, refusal: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ChannelConfigError(refusal);
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !(await policy.allows(url.hostname))) {
    throw new ChannelConfigError(refusal);
  }
  return url;
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

async function post(url: URL, init: RequestInit): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = await response.text().catch(() => "");
  return { status: response.status, body: body.slice(0, 500) };
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
      const url = await checkedUrl(channel.webhookUrl, policy, "Invalid webhook host");
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
      const url = await checkedUrl(channel.endpointUrl, policy, "Invalid endpoint host");
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
      if (!(await policy.allows(channel.smtpHost))) {
        throw new ChannelConfigError("Invalid SMTP host");
      }
      const implicitTls = channel.smtpUseTls && channel.smtpPort === 465;
      const transport = createTransport({
        host: channel.smtpHost,
        port: channel.smtpPort,
        secure: implicitTls,
        ignoreTLS: !channel.smtpUseTls,
        tls: { minVersion: "TLSv1.2" },
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
