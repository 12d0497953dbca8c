/**
 * The front's JSON errors carry the exit code the `bridle` CLI would give the same failure (its README, "Errors and
 * exit codes"): 2 for a usage error (a bad body, a missing token, an oversized message), 1 for a runtime failure
 * (an unknown session, a database that cannot be reached).
 */
export const EXIT = { failure: 1, usage: 2 } as const

/** An error the front answers with `status` and `{"error": {"message", "exit"}}`. */
export class HttpError extends Error {
  override name = 'HttpError'
  constructor(
    readonly status: number,
    message: string,
    readonly exit: number = status >= 500 || status === 404 || status === 409 ? EXIT.failure : EXIT.usage,
  ) {
    super(message)
  }
}

/** The JSON body of an error answer. */
export function errorBody(error: HttpError): { error: { message: string; exit: number; status: number } } {
  return { error: { message: error.message, exit: error.exit, status: error.status } }
}
