/**
 * Refusals of domain code. They say what went wrong in the domain's terms and know nothing of
 * HTTP: the API's one `onError` gives each kind its status and the `{"error": message}` body, so
 * services can be called from the command line, the MCP tools and tests alike.
 */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
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
  | "unavailable";

/** The request asks for something malformed or impossible. */
export class InvalidInput extends DomainError {
  override name = "InvalidInput";
  readonly kind = "invalid";
}

/** No credential, or one that stands for nobody. */
export class NotAuthenticated extends DomainError {
  override name = "NotAuthenticated";
  readonly kind = "unauthenticated";
}

/** The caller is known but may not do this. */
export class Forbidden extends DomainError {
  override name = "Forbidden";
  readonly kind = "forbidden";
}

/** The thing acted on does not exist (or is not the caller's to know of). */
export class NotFound extends DomainError {
  override name = "NotFound";
  readonly kind = "not_found";
}

/** The request contradicts the current state (a duplicate name, a resource in use). */
export class Conflict extends DomainError {
  override name = "Conflict";
  readonly kind = "conflict";
}

/** The input is over a size limit. */
export class TooLarge extends DomainError {
  override name = "TooLarge";
  readonly kind = "too_large";
}

/** Throttled: the caller may try again after `retryAfterSeconds`. */
export class TooManyRequests extends DomainError {
  override name = "TooManyRequests";
  readonly kind = "too_many_requests";
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
export class OperationFailed extends DomainError {
  override name = "OperationFailed";
  readonly kind = "failed";
}

/** A dependency the operation needs is not configured or not reachable. */
export class Unavailable extends DomainError {
  override name = "Unavailable";
  readonly kind = "unavailable";
}
