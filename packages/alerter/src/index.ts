export { type Channel, type ChannelType, loadChannels } from "./notify/channel.js";
export { type AlertFacts, alertMessage, type NotificationType, testMessage } from "./notify/messages.js";
export { ChannelConfigError, type Delivery, deliver, type Message } from "./notify/transport.js";
export { type AlertOperator, alertOperators, isAlertOperator, violates } from "./operators.js";
