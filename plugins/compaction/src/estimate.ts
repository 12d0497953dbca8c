import type { ContentBlock, Message, ToolSchema } from '@bridle/llm'

/** Characters counted for an image block: providers bill images at roughly a thousand tokens. */
const IMAGE_CHARS = 4000
/** Characters counted per message and per block for the wire format's framing (role, ids, JSON keys). */
const MESSAGE_OVERHEAD = 12
const BLOCK_OVERHEAD = 8

function blockChars(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
    case 'reasoning':
      return BLOCK_OVERHEAD + block.text.length
    case 'tool-call':
      return BLOCK_OVERHEAD + block.id.length + block.name.length + block.arguments.length
    case 'tool-result': {
      let chars = BLOCK_OVERHEAD + block.toolCallId.length
      for (const inner of block.content) chars += blockChars(inner)
      return chars
    }
    case 'image':
      return IMAGE_CHARS
    default:
      return BLOCK_OVERHEAD
  }
}

/**
 * A token estimate from character counts. Each message's count is computed once (messages are frozen and shared, so
 * the count is cached against the object); tokens = characters × a ratio that starts at `1 / charsPerToken` and is
 * recalibrated from the provider's reported input tokens whenever a whole request's count and report are known.
 * The estimate only needs to be close for what was appended since the last report: the projection adds it to the
 * reported count, which is exact.
 */
export class TokenEstimator {
  readonly #perMessage = new WeakMap<object, number>()
  #tools: { value: readonly ToolSchema[] | undefined; chars: number } | undefined
  /** Tokens per character. */
  #ratio: number

  constructor(charsPerToken: number) {
    this.#ratio = 1 / charsPerToken
  }

  /** The current tokens-per-character ratio. */
  get ratio(): number {
    return this.#ratio
  }

  /** Characters of one message, framing included (cached per message object). */
  messageChars(message: Message): number {
    let chars = this.#perMessage.get(message)
    if (chars === undefined) {
      chars = MESSAGE_OVERHEAD
      for (const block of message.content) chars += blockChars(block)
      this.#perMessage.set(message, chars)
    }
    return chars
  }

  /** Characters of the system prompt and tool schemas (the tools' JSON, cached per tools array). */
  headerChars(system: string | undefined, tools: readonly ToolSchema[] | undefined): number {
    let cached = this.#tools
    if (cached === undefined || cached.value !== tools) {
      cached = this.#tools = { value: tools, chars: tools === undefined ? 0 : JSON.stringify(tools).length }
    }
    return (system?.length ?? 0) + cached.chars
  }

  /** Characters of `messages[from..to)`. */
  messagesChars(messages: readonly Message[], from = 0, to = messages.length): number {
    let chars = 0
    for (let i = from; i < to; i++) chars += this.messageChars(messages[i]!)
    return chars
  }

  /** Estimated tokens for `chars` characters. */
  tokens(chars: number): number {
    return Math.ceil(chars * this.#ratio)
  }

  /**
   * Recalibrates from one request: `chars` characters that the provider reported as `reportedTokens` input tokens.
   * Ignored when either is not positive.
   */
  calibrate(chars: number, reportedTokens: number): void {
    if (chars > 0 && reportedTokens > 0) this.#ratio = reportedTokens / chars
  }
}
