/** Every error this client throws (or returns in `{ data, error }` mode) is a `DbmonError`. */
export class DbmonError extends Error {
  override name = "DbmonError";
}

/** The API answered with a non-2xx status. */
export class DbmonApiError<Body = { error: string }> extends DbmonError {
  override name = "DbmonApiError";
  constructor(
    /** The HTTP status. */
    readonly status: number,
    message: string,
    /** The parsed error body, `{ error: "..." }` for every dbmon error. */
    readonly body: Body,
    /** The `X-Request-Id` dbmon gave the request, for its logs. */
    readonly requestId: string | undefined,
    /** The response, its body already read. */
    readonly response: Response,
  ) {
    super(message);
  }
}

/** 400: the request was malformed or a value was invalid. */
export class BadRequestError<B = { error: string }> extends DbmonApiError<B> {
  override name = "BadRequestError";
}
/** 401: no valid credential. */
export class UnauthorizedError<B = { error: string }> extends DbmonApiError<B> {
  override name = "UnauthorizedError";
}
/** 403: the credential is valid but not allowed to do this. */
export class ForbiddenError<B = { error: string }> extends DbmonApiError<B> {
  override name = "ForbiddenError";
}
/** 404: the resource does not exist or is not visible to the caller. */
export class NotFoundError<B = { error: string }> extends DbmonApiError<B> {
  override name = "NotFoundError";
}
/** 409: the request conflicts with the current state (a duplicate name, say). */
export class ConflictError<B = { error: string }> extends DbmonApiError<B> {
  override name = "ConflictError";
}
/** 429: too many requests. */
export class RateLimitError<B = { error: string }> extends DbmonApiError<B> {
  override name = "RateLimitError";
}
/** 5xx: dbmon or something in front of it failed. */
export class ServerError<B = { error: string }> extends DbmonApiError<B> {
  override name = "ServerError";
}

/** The request never got an answer: DNS, connection refused, reset. `cause` is the fetch error. */
export class DbmonNetworkError extends DbmonError {
  override name = "DbmonNetworkError";
}

/** No answer within the configured timeout. */
export class DbmonTimeoutError extends DbmonError {
  override name = "DbmonTimeoutError";
}

/** One way a response body differs from its schema. */
export interface ValidationIssue {
  /** Where in the body, e.g. `["alerts", 0, "severity"]`. */
  path: readonly (string | number)[];
  message: string;
}

/** In validation mode: a successful answer whose body does not match the operation's schema. */
export class DbmonValidationError extends DbmonError {
  override name = "DbmonValidationError";
  constructor(
    /** The operation called. */
    readonly route: { method: string; path: string },
    /** What is wrong with the body. */
    readonly issues: readonly ValidationIssue[],
    /** The parsed body as received. */
    readonly body: unknown,
    /** The response, its body already read. */
    readonly response: Response,
  ) {
    super(
      `${route.method.toUpperCase()} ${route.path}: the response does not match its schema (${issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`)
        .join("; ")})`,
    );
  }
}

const byStatus: Record<number, typeof DbmonApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
};

/** The error class of a status. */
export function apiError(
  status: number,
  message: string,
  body: unknown,
  response: Response,
): DbmonApiError<never> {
  const Class = byStatus[status] ?? (status >= 500 ? ServerError : DbmonApiError);
  return new Class(
    status,
    message,
    body as never,
    response.headers.get("x-request-id") ?? undefined,
    response,
  );
}
