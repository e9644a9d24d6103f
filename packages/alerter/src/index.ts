export { type AlerterClock, type AlerterOptions, type RunningAlerter, startAlerter } from "./alerter.js";
export { type AlerterLogger, silentAlerterLogger } from "./logger.js";
export {
  currentValues,
  type MetricDefinition,
  type MetricValue,
  metricDefinitions,
  wholeServerOnly,
} from "./metrics.js";
export { type Channel, type ChannelType, loadChannels } from "./notify/channel.js";
export { type AlertFacts, alertMessage, type NotificationType, testMessage } from "./notify/messages.js";
export { MAX_ATTEMPTS, RETRY_BACKOFF_MINUTES } from "./notify/queue.js";
export { ChannelConfigError, type Delivery, deliver, type Message } from "./notify/transport.js";
export { type AlertOperator, alertOperators, isAlertOperator, violates } from "./operators.js";
