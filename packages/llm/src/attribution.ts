/**
 * Attribution: every provider HTTP request names Bridle in its `user-agent`.
 */
import manifest from '../package.json' with { type: 'json' }

/** The version of `@bridle/llm`, bundled from its package manifest at build time (`changeset version` sets it). */
export const LLM_PACKAGE_VERSION: string = manifest.version

/** Headers adapters merge into every provider HTTP request: `{ 'user-agent': 'bridle/<version>' }`. */
export function attributionHeaders(): { 'user-agent': string } {
  return { 'user-agent': `bridle/${LLM_PACKAGE_VERSION}` }
}
