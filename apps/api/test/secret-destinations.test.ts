import {
  createConnection,
  createNotificationChannel,
  getNotificationChannel,
  updateConnection,
  updateNotificationChannel,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

/**
 * A stored secret never follows a change of destination (docs/security.md): whoever may edit a
 * connection or a channel but not read its secrets must re-enter them to point it elsewhere.
 */
describe("stored secrets and a change of destination", () => {
  let t: TestApp;
  let owner: TestUser;
  let channels: TestUser;

  beforeAll(async () => {
    t = await buildTestApp();
    owner = await createUser(t, "owner", { permissions: ["manage_connections"] });
    channels = await createUser(t, "channels", { permissions: ["manage_notification_channels"] });
  });
  afterAll(() => t.close());

  /** A refused change: the raw response. */
  const put = (user: TestUser, path: string, body: unknown) =>
    requestJson(t.app, path, { method: "PUT", token: user.token, body });
  const stored = async (id: number) =>
    (
      await t.datastore.sql`select host, port, hostaddr, password_encrypted from connections where id = ${id}`
    )[0];

  it("a connection's host, hostaddr, port, ssl_mode or trusted CA changes only with its password", async () => {
    const api = typedClient(t, owner.token);
    const { id } = await api.call(createConnection, {
      body: {
        name: "db",
        host: "127.0.0.1",
        port: 5432,
        database_name: "postgres",
        username: "postgres",
        password: "the-stored-password",
      },
    });
    const before = await stored(id);
    const refusal = {
      error:
        "Changing host, hostaddr or port requires re-entering the password (send password with the change)",
    };
    for (const change of [{ host: "127.0.0.2" }, { port: 5433 }, { hostaddr: "127.0.0.3" }]) {
      const res = await put(owner, `/api/v1/connections/${id}`, change);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(refusal);
    }
    expect(await stored(id)).toEqual(before);

    // The same values, or other fields, need nothing.
    await api.call(updateConnection, {
      params: { id },
      body: { host: "127.0.0.1", port: 5432, description: "x" },
    });
    const moved = await api.call(updateConnection, {
      params: { id },
      body: { host: "127.0.0.2", password: "re-entered" },
    });
    expect(moved).toMatchObject({ host: "127.0.0.2" });
    expect((await stored(id))?.password_encrypted).not.toBe(before?.password_encrypted);

    // Any change of ssl_mode, too: a weaker one lets the network pose as the server.
    await t.datastore.sql`update connections set sslmode = 'verify-full' where id = ${id}`;
    const sslBefore = await t.datastore
      .sql`select sslmode, password_encrypted from connections where id = ${id}`;
    for (const sslMode of ["disable", "prefer", "require"]) {
      const res = await put(owner, `/api/v1/connections/${id}`, { ssl_mode: sslMode });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error:
          "Changing ssl_mode or ssl_root_cert_path requires re-entering the password (send password with the change)",
      });
    }
    // The trusted CA decides who may pose as the server under verify-full: it counts as ssl_mode.
    const ca = await put(owner, `/api/v1/connections/${id}`, { ssl_root_cert_path: "/tmp/attacker-ca.pem" });
    expect(ca.status).toBe(400);
    expect(await ca.json()).toEqual({
      error:
        "Changing ssl_mode or ssl_root_cert_path requires re-entering the password (send password with the change)",
    });
    expect(
      await t.datastore.sql`select sslmode, password_encrypted from connections where id = ${id}`,
    ).toEqual(sslBefore);
    await api.call(updateConnection, { params: { id }, body: { ssl_mode: "verify-full", description: "y" } });
    expect(
      await api.call(updateConnection, { params: { id }, body: { ssl_mode: "disable", password: "again" } }),
    ).toMatchObject({ ssl_mode: "disable" });

    // Without a stored password there is nothing to protect.
    await t.datastore.sql`update connections set password_encrypted = null where id = ${id}`;
    expect(await api.call(updateConnection, { params: { id }, body: { port: 5433 } })).toMatchObject({
      port: 5433,
    });
  });

  it("a webhook's endpoint_url changes only with its stored headers and credentials", async () => {
    const api = typedClient(t, channels.token);
    const { id } = await api.call(createNotificationChannel, {
      body: {
        channel_type: "webhook",
        name: "hook",
        endpoint_url: "https://hooks.example.com/a",
        headers: { "X-Api-Key": "k" },
        auth_type: "bearer",
        auth_credentials: "s3cret",
      },
    });
    const path = `/api/v1/notification-channels/${id}`;
    const refused = await put(channels, path, { endpoint_url: "https://attacker.example.net/" });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error:
        "Changing endpoint_url requires re-entering the stored auth_credentials and headers (send them again, or empty to clear them)",
    });
    const partly = await put(channels, path, { endpoint_url: "https://attacker.example.net/", headers: {} });
    expect(await partly.json()).toEqual({
      error:
        "Changing endpoint_url requires re-entering the stored auth_credentials (send them again, or empty to clear them)",
    });
    expect(await api.call(getNotificationChannel, { params: { id } })).toMatchObject({
      endpoint_url: "https://hooks.example.com/a",
      header_names: ["X-Api-Key"],
    });
    await api.call(updateNotificationChannel, {
      params: { id },
      body: { endpoint_url: "https://hooks.example.com/a", name: "same" },
    });
    const moved = await api.call(updateNotificationChannel, {
      params: { id },
      body: { endpoint_url: "https://other.example.com/", headers: {}, auth_credentials: "" },
    });
    expect(moved).toMatchObject({
      endpoint_url: "https://other.example.com/",
      header_names: [],
      auth_credentials_set: false,
    });
  });

  it("an email channel's smtp_host or smtp_port changes only with its stored password", async () => {
    const api = typedClient(t, channels.token);
    const { id } = await api.call(createNotificationChannel, {
      body: {
        channel_type: "email",
        name: "mail",
        smtp_host: "smtp.example.com",
        from_address: "dbmon@example.com",
        smtp_username: "u",
        smtp_password: "smtp-secret",
      },
    });
    const path = `/api/v1/notification-channels/${id}`;
    for (const change of [{ smtp_host: "smtp.attacker.example.net" }, { smtp_port: 2525 }]) {
      const res = await put(channels, path, change);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error:
          "Changing smtp_host or smtp_port requires re-entering the stored smtp_password (send them again, or empty to clear them)",
      });
    }
    const moved = await api.call(updateNotificationChannel, {
      params: { id },
      body: { smtp_host: "smtp2.example.com", smtp_password: "new-secret" },
    });
    expect(moved).toMatchObject({ smtp_host: "smtp2.example.com", smtp_password_set: true });
  });

  it("an email channel's smtp_use_tls turns off only with its stored password", async () => {
    const api = typedClient(t, channels.token);
    const { id } = await api.call(createNotificationChannel, {
      body: {
        channel_type: "email",
        name: "tls-mail",
        smtp_host: "smtp.example.com",
        from_address: "dbmon@example.com",
        smtp_username: "u",
        smtp_password: "smtp-secret",
      },
    });
    const path = `/api/v1/notification-channels/${id}`;
    const password = async () =>
      (await t.datastore.sql`select smtp_password_encrypted from notification_channels where id = ${id}`)[0];
    const before = await password();
    const refused = await put(channels, path, { smtp_use_tls: false });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error:
        "Turning smtp_use_tls off requires re-entering the stored smtp_password (send them again, or empty to clear them)",
    });
    expect(await api.call(getNotificationChannel, { params: { id } })).toMatchObject({ smtp_use_tls: true });
    expect(await password()).toEqual(before);

    // Keeping TLS on needs nothing; turning it off with the password, or clearing it, is allowed.
    await api.call(updateNotificationChannel, { params: { id }, body: { smtp_use_tls: true, name: "kept" } });
    expect(
      await api.call(updateNotificationChannel, {
        params: { id },
        body: { smtp_use_tls: false, smtp_password: "" },
      }),
    ).toMatchObject({ smtp_use_tls: false, smtp_password_set: false });
    // Turning it back on needs nothing either.
    expect(
      await api.call(updateNotificationChannel, { params: { id }, body: { smtp_use_tls: true } }),
    ).toMatchObject({ smtp_use_tls: true });
  });
});
