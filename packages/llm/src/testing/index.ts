export { clientFor, configFor, TEST_KEY } from "./clients.js";
export {
  type FakeProvider,
  type FakeProviderOptions,
  type RecordedRequest,
  type ScriptedAnswer,
  startFakeProvider,
} from "./fake-provider.js";
