import { createRequire } from 'node:module'

/** The instrumentation scope of every span: this package's name and version. */
export const TRACER_NAME = '@bridle/otel'
export const TRACER_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version
