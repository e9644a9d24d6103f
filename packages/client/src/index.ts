export * from "@dbmon/contract";
export {
  type ClientOptions,
  createClient,
  DbmonApiError,
  type DbmonClient,
  type InputOf,
  type ResponseOf,
} from "./client.js";
