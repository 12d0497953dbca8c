import { HarnessError } from '@bridle/llm'

/**
 * Why `read_file` refused or failed. The tool registry turns it into the error result `Error: <message>` and keeps
 * `{name: 'ReadFileError', code}` as durable error info. Codes: `OUTSIDE_WORKSPACE`, `NOT_FOUND`, `NOT_A_FILE`,
 * `BINARY_FILE`, `BAD_OFFSET`, `UNREADABLE`.
 */
export class ReadFileError extends HarnessError {
  constructor(message: string, code: string, options?: { cause?: unknown }) {
    super(message, code, options)
    this.name = 'ReadFileError'
  }
}
