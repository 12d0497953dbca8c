import type { Context } from 'cordis'

/** Events used by this package's tests only (module augmentation, as Bridle packages do it). */
export interface Payload {
  trail: string[]
}

declare module 'cordis' {
  interface Events<C extends Context = Context> {
    'x/ping'(): void
    'x/this'(): void
    'x/ask'(): string | null | undefined
    'x/boom'(): void
    'x/tap'(n: number): void
    'test/wf'(payload: Payload, next: () => Promise<string>): Promise<string>
    'test/sync'(payload: Payload, tag: string, next: () => string): string
  }
}
