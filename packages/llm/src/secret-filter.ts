/**
 * The secret filter (docs/security.md#the-filter): the values of the credentials Bridle holds, and one scan that
 * replaces each of them with `[redacted]` in a whole text, in a JSON value, or in a text that arrives in pieces.
 * Pure and synchronous; it never logs, stores or compares anything but the values it was given.
 */
import { SecretStream } from './secret-stream.js'

/** What a known secret is replaced with. */
export const REDACTED = '[redacted]'

/**
 * Values shorter than this are not treated as secrets: replacing every `none` or `EMPTY` (the dummy keys some local
 * servers take) would mangle ordinary words, and no real API key is that short.
 */
export const MIN_SECRET_LENGTH = 8

/**
 * A set of secret values and the scan that removes them. Each value is also matched in the forms it takes inside
 * JSON text (`"` and `\` escaped; also `<`, `>`, `&` as in a script element) and inside a URL (percent-encoded). Matching is leftmost-longest: at each position
 * the longest form that starts there is replaced, and the scan continues after it. The streamed scan
 * (`SecretStream`) makes exactly the decisions of the whole-text scan, so the pieces it emits join to `redact` of
 * the whole text.
 */
export class SecretFilter {
  private readonly values = new Set<string>()
  /** Every form of every value, longest first. */
  private forms: readonly string[] = []
  /** First UTF-16 unit of a form → the forms starting with it, longest first. */
  private readonly byFirst = new Map<number, readonly string[]>()
  /** The forms starting with each ASCII unit (undefined for none): the per-character test of a scan, no map lookup. */
  private readonly asciiStarts: (readonly string[] | undefined)[] = new Array(128).fill(undefined)
  /** True when some form starts with a non-ASCII unit (then those characters go to the map). */
  private nonAsciiStarts = false
  /** 1 for every ASCII unit that occurs anywhere in a form; `nonAsciiChars` when a non-ASCII one does. */
  private readonly formChars = new Uint8Array(128)
  private nonAsciiChars = false
  private longest = 0
  /** The tail the last streamed scan held back (read right after it by `SecretStream`; never kept between scans). */
  private tail = ''
  /** The shortest form: a text shorter than this holds no complete secret (most log strings are). */
  private shortest = 0

  constructor(secrets: Iterable<string | null | undefined> = []) {
    for (const secret of secrets) this.add(secret)
  }

  /** How many values the filter knows. */
  get size(): number {
    return this.values.size
  }

  /**
   * This filter as `@bridle/session`'s append path takes it: `apply` is `redact`, and strings shorter than `minLength`
   * are never handed to it. One object for the filter's life, so an append makes none.
   */
  readonly asTextFilter: { readonly minLength: number; apply(text: string): string } = (() => {
    const self = this
    return Object.freeze({
      get minLength() {
        return self.shortest
      },
      apply: (text: string) => self.redact(text),
    })
  })()

  /** The length of the shortest form: a text shorter than this holds no complete secret (0 when none is known). */
  get shortestForm(): number {
    return this.shortest
  }

  /** The length of the longest form: a streamed text is never held back by more than this minus one. */
  get longestForm(): number {
    return this.longest
  }

  /**
   * Adds a secret (also trimmed, when that differs). Returns true when the filter learned something new. Values
   * shorter than `MIN_SECRET_LENGTH`, non-strings, and pieces of the `[redacted]` marker itself are ignored.
   */
  add(secret: string | null | undefined): boolean {
    if (typeof secret !== 'string') return false
    let learned = false
    for (const value of new Set([secret, secret.trim()])) {
      if (value.length < MIN_SECRET_LENGTH || REDACTED.includes(value) || this.values.has(value)) continue
      this.values.add(value)
      learned = true
    }
    if (learned) this.rebuild()
    return learned
  }

  /** True when `secret` is one of the values (as given, not a form). */
  has(secret: string): boolean {
    return this.values.has(secret)
  }

  /** A new filter that knows these values and `more`. */
  with(more: Iterable<string | null | undefined>): SecretFilter {
    const filter = new SecretFilter(this.values)
    for (const secret of more) filter.add(secret)
    return filter
  }

  /** `text` with every known secret replaced by `[redacted]`. The same string when nothing matched. */
  redact(text: string): string {
    const forms = this.forms
    if (forms.length === 0 || text.length < this.shortest) return text
    let found = false
    for (const form of forms) {
      if (text.includes(form)) {
        found = true
        break
      }
    }
    return found ? this.scan(text, true, 0) : text
  }

  /**
   * `redact` for a text known to be the head of a longer one (a body read up to a byte cap): a tail that could be the
   * start of a secret is dropped too, since the rest of that secret was cut off.
   */
  redactHead(text: string): string {
    return this.scanPiece(text, false)
  }

  /**
   * `text.slice(start, end)` redacted as a piece of the whole text: a secret that only overlaps the slice (it began
   * before `start` or runs past `end`) is replaced too, so an excerpt cut around a position shows no part of one.
   */
  redactSlice(text: string, start: number, end: number): string {
    const from = Math.max(0, start)
    const to = Math.min(text.length, Math.max(from, end))
    if (this.forms.length === 0) return text.slice(from, to)
    // a match that overlaps the slice starts at most `longest - 1` before it; start the scan a full form earlier
    const windowStart = Math.max(0, from - 2 * this.longest)
    const window = text.slice(windowStart, Math.min(text.length, to + this.longest))
    let out = ''
    let at = from
    for (const [matchStart, matchEnd] of this.matches(window)) {
      const s0 = matchStart + windowStart
      const e0 = matchEnd + windowStart
      if (e0 <= from || s0 >= to) continue
      out += text.slice(at, Math.max(at, s0)) + REDACTED
      at = Math.min(to, e0)
    }
    return out + text.slice(at, to)
  }

  /**
   * A JSON value with `redact` applied to every string and object key. Containers and strings without a secret are
   * returned as they were (the same objects), so a frozen value stays frozen and nothing is copied in vain.
   */
  redactJson<T>(value: T): T {
    if (this.forms.length === 0) return value
    return this.redactValue(value) as T
  }

  /** A cursor that filters one text arriving in pieces (see `SecretStream`). */
  stream(): SecretStream {
    return new SecretStream(this)
  }

  /**
   * Scans `text` from the start and returns what may be emitted. With `final`, the text is complete. Otherwise the scan
   * stops at the first position where a form may still start and keeps that tail (`heldTail`): it is scanned again with
   * the text that follows. No object is made per scan: a streamed answer calls this once per delta.
   * @internal
   */
  scanPiece(text: string, final: boolean): string {
    this.tail = ''
    if (this.forms.length === 0) return text
    if (final) return this.redact(text)
    // No complete form inside: only the last `longest - 1` characters can begin one that the next piece completes.
    let complete = false
    if (text.length >= this.shortest) {
      for (const form of this.forms) {
        if (text.includes(form)) {
          complete = true
          break
        }
      }
    }
    if (complete) return this.scan(text, false, 0)
    // A held tail is made of characters that occur in some form: it can only begin inside the text's last run of
    // them (a delta that ends in a space or a period holds nothing), and at most `longest - 1` from the end.
    const limit = Math.max(0, text.length - this.longest + 1)
    const inForms = this.formChars
    let from = text.length
    while (from > limit) {
      const unit = text.charCodeAt(from - 1)
      if (unit < 128 ? inForms[unit] === 0 : !this.nonAsciiChars) break
      from--
    }
    return from === text.length ? text : this.scan(text, false, from)
  }

  /** The tail the last `scanPiece` held back. @internal */
  get heldTail(): string {
    return this.tail
  }

  private scan(text: string, final: boolean, from: number): string {
    const n = text.length
    const ascii = this.asciiStarts
    const nonAscii = this.nonAsciiStarts
    let out = ''
    let emitted = 0
    for (let i = from; i < n; i++) {
      const unit = text.charCodeAt(i)
      const candidates = unit < 128 ? ascii[unit] : nonAscii ? this.byFirst.get(unit) : undefined
      if (candidates === undefined) continue
      let match = 0
      let waiting = false
      for (let c = 0; c < candidates.length; c++) {
        const form = candidates[c]!
        if (n - i >= form.length) {
          if (text.startsWith(form, i)) {
            match = form.length
            break
          }
        } else if (!final && !waiting) {
          // is the rest of the text the start of this form? (compared in place, without a copy)
          let j = 1
          while (i + j < n && text.charCodeAt(i + j) === form.charCodeAt(j)) j++
          waiting = i + j === n
        }
      }
      // a longer form may still match here: decide when more text has come
      if (waiting) {
        this.tail = text.slice(i)
        return out + text.slice(emitted, i)
      }
      if (match > 0) {
        out += text.slice(emitted, i) + REDACTED
        emitted = i + match
        i = emitted - 1
      }
    }
    return emitted === 0 ? text : out + text.slice(emitted)
  }

  /** The [start, end) ranges the whole-text scan replaces in `text`, in order. */
  private *matches(text: string): Generator<[number, number]> {
    const n = text.length
    for (let i = 0; i < n; i++) {
      const candidates = this.byFirst.get(text.charCodeAt(i))
      if (candidates === undefined) continue
      const form = candidates.find((f) => text.startsWith(f, i))
      if (form === undefined) continue
      yield [i, i + form.length]
      i += form.length - 1
    }
  }

  private redactValue(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value)
    if (value === null || typeof value !== 'object') return value
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined
      for (let i = 0; i < value.length; i++) {
        const item = value[i]
        const clean = this.redactValue(item)
        if (clean !== item) (copy ??= value.slice())[i] = clean
      }
      return copy ?? value
    }
    let copy: Record<string, unknown> | undefined
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
    for (const key of keys) {
      const item = record[key]
      const clean = this.redactValue(item)
      const cleanKey = this.redact(key)
      if (clean === item && cleanKey === key) continue
      copy ??= Object.fromEntries(keys.map((k) => [k, record[k]]))
      if (cleanKey !== key) delete copy[key]
      Object.defineProperty(copy, cleanKey, { value: clean, writable: true, enumerable: true, configurable: true })
    }
    return copy ?? value
  }

  private rebuild(): void {
    const forms = new Set<string>()
    for (const value of this.values) {
      forms.add(value)
      const json = JSON.stringify(value).slice(1, -1)
      forms.add(json)
      // as a JSON string inside an HTML <script> (`<`, `>` and `&` escaped), the form `--html` pages carry
      forms.add(json.replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
      forms.add(encodeURIComponent(value))
    }
    this.forms = [...forms].sort((a, b) => b.length - a.length)
    this.longest = this.forms[0]?.length ?? 0
    this.shortest = this.forms.at(-1)?.length ?? 0
    this.byFirst.clear()
    this.asciiStarts.fill(undefined)
    this.nonAsciiStarts = false
    this.formChars.fill(0)
    this.nonAsciiChars = false
    for (const form of this.forms) {
      for (let i = 0; i < form.length; i++) {
        const unit = form.charCodeAt(i)
        if (unit < 128) this.formChars[unit] = 1
        else this.nonAsciiChars = true
      }
    }
    for (const form of this.forms) {
      const first = form.charCodeAt(0)
      const forms = [...(this.byFirst.get(first) ?? []), form]
      this.byFirst.set(first, forms)
      if (first < 128) this.asciiStarts[first] = forms
      else this.nonAsciiStarts = true
    }
  }
}
