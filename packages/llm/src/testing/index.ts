export { clientFor, configFor, fakeProviderEnv, TEST_KEY } from "./clients.js";
export {
  type FakeProvider,
  type FakeProviderOptions,
  fakeEmbedding,
  type RecordedRequest,
  type ScriptedAnswer,
  type ScriptedToolCall,
  startFakeProvider,
  type WireFormat,
} from "./fake-provider.js";
