/**
 * Refusals of domain code. They say what went wrong in the domain's terms and know nothing of
 * HTTP: the API's one `onError` gives each kind its status and the `{"error": message}` body, so
 * services can be called from the command line, the MCP tools and tests alike.
 */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  constructor(message: string) {
    super(message);
    // The subclass's own name, for logs and stack traces.
    this.name = new.target.name;
  }
}

export type DomainErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "too_large"
  | "too_many_requests"
  | "failed"
  | "upstream_failed"
  | "unavailable";

/** The base class of the refusals of one kind. */
function refusalOf<const K extends DomainErrorKind>(kind: K) {
  abstract class Refusal extends DomainError {
    readonly kind = kind;
  }
  return Refusal;
}

/** The request asks for something malformed or impossible. */
export class InvalidInput extends refusalOf("invalid") {}

/** No credential, or one that stands for nobody. */
export class NotAuthenticated extends refusalOf("unauthenticated") {}

/** The caller is known but may not do this. */
export class Forbidden extends refusalOf("forbidden") {}

/** The thing acted on does not exist (or is not the caller's to know of). */
export class NotFound extends refusalOf("not_found") {}

/** The request contradicts the current state (a duplicate name, a resource in use). */
export class Conflict extends refusalOf("conflict") {}

/** The input is over a size limit. */
export class TooLarge extends refusalOf("too_large") {}

/** Throttled: the caller may try again after `retryAfterSeconds`. */
export class TooManyRequests extends refusalOf("too_many_requests") {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * The operation failed for a reason the caller may know (an upstream server refused, say);
 * the message is safe to show, unlike an unexpected error's.
 */
export class OperationFailed extends refusalOf("failed") {}

/** A server the operation talks to on the caller's behalf (a webhook receiver, say) refused or failed. */
export class UpstreamFailed extends refusalOf("upstream_failed") {}

/** A dependency the operation needs is not configured or not reachable. */
export class Unavailable extends refusalOf("unavailable") {}
