/**
 * Attribution: every provider HTTP request names Bridle in its `user-agent`.
 */
import { readFileSync } from 'node:fs'

// Read at load time rather than imported: the manifest sits outside src/, which the declaration build compiles, and
// both src/ (tests) and dist/ (published) are one folder below it.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

/** The version of `@bridle/llm`, from its package manifest (`changeset version` sets it at release). */
export const LLM_PACKAGE_VERSION: string = manifest.version

/** Headers adapters merge into every provider HTTP request: `{ 'user-agent': 'bridle/<version>' }`. */
export function attributionHeaders(): { 'user-agent': string } {
  return { 'user-agent': `bridle/${LLM_PACKAGE_VERSION}` }
}
