export {
  type FakeProvider,
  type FakeProviderOptions,
  type RecordedRequest,
  type ScriptedAnswer,
  startFakeProvider,
} from "./fake-provider.js";
