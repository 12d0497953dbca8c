import { createUserMessage, type UserMessage } from '@bridle/llm'
import { HttpError } from './errors.js'

/** What `POST /sessions/:id/messages` accepts (and `POST /sessions` as its optional first message). */
export interface MessageBody {
  /** The message's text (or `content`: content blocks, as `@bridle/llm` defines them). */
  readonly text?: string
  readonly content?: readonly unknown[]
  /** An id chosen by the client, so a retried POST posts the message once (`duplicate: true` the second time). */
  readonly id?: string
  /** `next-turn` (default) opens a turn; `next-step` steers the running turn, or opens one when none runs. */
  readonly target?: 'next-turn' | 'next-step'
}

const KEYS = new Set(['text', 'content', 'id', 'target'])

/** Builds the user message a body describes, or throws a 400 naming what is wrong. Nothing is stored here. */
export function messageFromBody(
  raw: unknown,
  where = 'body',
): { message: UserMessage; target: 'next-turn' | 'next-step' } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new HttpError(400, `${where} must be a JSON object with "text" (or "content")`)
  }
  const body = raw as Record<string, unknown>
  const unknown = Object.keys(body).filter((k) => !KEYS.has(k))
  if (unknown.length > 0) {
    throw new HttpError(
      400,
      `${where}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}`,
    )
  }
  const target = body.target ?? 'next-turn'
  if (target !== 'next-turn' && target !== 'next-step') {
    throw new HttpError(400, `${where}.target must be "next-turn" or "next-step", got ${JSON.stringify(target)}`)
  }
  if ((body.text === undefined) === (body.content === undefined)) {
    throw new HttpError(400, `${where} needs exactly one of "text" and "content"`)
  }
  if (body.text !== undefined && (typeof body.text !== 'string' || body.text.length === 0)) {
    throw new HttpError(400, `${where}.text must be a non-empty string`)
  }
  if (body.content !== undefined && !Array.isArray(body.content)) {
    throw new HttpError(400, `${where}.content must be an array of content blocks`)
  }
  if (body.id !== undefined && (typeof body.id !== 'string' || !/^[A-Za-z0-9._:-]{1,200}$/.test(body.id))) {
    throw new HttpError(400, `${where}.id must be 1 to 200 characters of A-Z a-z 0-9 . _ : -`)
  }
  let message: UserMessage
  try {
    message = createUserMessage((body.text ?? body.content) as never)
  } catch (error) {
    throw new HttpError(400, `${where}.content: ${(error as Error).message}`)
  }
  if (body.id !== undefined) message = Object.freeze({ ...message, id: body.id }) as UserMessage
  return { message, target }
}
