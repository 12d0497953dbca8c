/**
 * The official provider SDKs (`openai`, `@anthropic-ai/sdk`) come from one generator: they take the same request
 * options and throw the same four error classes. An adapter hands its SDK's classes over, so the retry conditions and
 * the catch ladder are written once.
 */

/** A class of the SDK's errors (matched with `instanceof`). */
export type SdkErrorClass<E extends Error = Error> = abstract new (...args: never[]) => E

/** What an SDK's `APIError` carries: the answer's status (undefined for a connection failure), headers and body. */
export interface SdkApiError extends Error {
  readonly status: number | undefined
  readonly headers: Headers | undefined
  /** The parsed JSON body of the failed answer, as far as the SDK kept it. */
  readonly error: unknown
}

/** The SDK's error classes, as `import { APIError, … } from '<sdk>'` exports them. */
export interface SdkErrorClasses {
  /** A failed answer (and, as subclasses, every class below). */
  APIError: SdkErrorClass<SdkApiError>
  /** No answer: DNS, refused, reset, TLS. */
  APIConnectionError: SdkErrorClass
  /** No response headers within the per-attempt timeout. */
  APIConnectionTimeoutError: SdkErrorClass
  /** The request's signal aborted. */
  APIUserAbortError: SdkErrorClass
}

/** An SDK error that carries an HTTP status: a non-2xx answer. */
export type SdkHttpError = SdkApiError & { readonly status: number }

/** The failed answer `error` stands for, if it is one. */
export function sdkHttpError(error: unknown, sdk: SdkErrorClasses): SdkHttpError | undefined {
  return error instanceof sdk.APIError && typeof error.status === 'number' ? (error as SdkHttpError) : undefined
}

/**
 * The options of one request attempt through the SDK: the call's signal, no retries of the SDK's own (the kit runs
 * them, `withRetries`), an event stream asked for, and the attempt's number in `x-stainless-retry-count` as the SDK
 * itself would send it.
 */
export function sdkRequestOptions(signal: AbortSignal, retryCount: number) {
  return {
    signal,
    maxRetries: 0,
    headers: { accept: 'text/event-stream', 'x-stainless-retry-count': String(retryCount) },
  }
}
