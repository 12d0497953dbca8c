/**
 * The attribute names the spans use are the conventions' own: each one equals the constant of the pinned
 * `@opentelemetry/semantic-conventions` (1.45.0; the GenAI names from its `/incubating` entry).
 */
import * as incubating from '@opentelemetry/semantic-conventions/incubating'
import * as stable from '@opentelemetry/semantic-conventions'
import { describe, expect, it } from 'vitest'
import { BRIDLE, ERROR_TYPE, GEN_AI, HTTP_RESPONSE_STATUS_CODE, OPERATION } from '../src/index.js'
import { SERVICE_NAME } from '../src/semconv.js'

const constantName = (key: string) => `ATTR_GEN_AI_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`

describe('semantic convention names', () => {
  it('every gen_ai.* name is the incubating constant of the same name', () => {
    for (const [key, name] of Object.entries(GEN_AI)) {
      const constant = constantName(key)
      expect({ constant, value: (incubating as Record<string, unknown>)[constant] }).toEqual({ constant, value: name })
    }
  })

  it('the operation names are the conventions values', () => {
    expect(OPERATION).toEqual({
      invokeAgent: incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    })
  })

  it('error.type, http.response.status_code and service.name are the stable constants', () => {
    expect(ERROR_TYPE).toBe(stable.ATTR_ERROR_TYPE)
    expect(HTTP_RESPONSE_STATUS_CODE).toBe(stable.ATTR_HTTP_RESPONSE_STATUS_CODE)
    expect(SERVICE_NAME).toBe(stable.ATTR_SERVICE_NAME)
  })

  it("Bridle's own names live under bridle. and none collides with a conventions name", () => {
    const values: unknown[] = Object.values({ ...incubating, ...stable })
    const conventionNames = new Set(values.filter((v): v is string => typeof v === 'string'))
    for (const name of Object.values(BRIDLE)) {
      expect(name.startsWith('bridle.')).toBe(true)
      expect(conventionNames.has(name)).toBe(false)
    }
  })
})
