import { joinContextSections, renderContextSections, type PromptAssembly } from '@bridle/system-prompt'
import type { InboxTarget } from '@bridle/inbox'
import { preStep } from './pre-step.js'
import { service, type AgentRuntime } from './runtime.js'
import type { PreStepDecision } from '../vocabulary/types.js'

/** A decided proposal: what enters the step, and the assembly the step's request is built from. */
export interface Proposal {
  decision: PreStepDecision
  assembly: PromptAssembly
}

/**
 * Stations S1–S6 of one proposed step: claim the input (consumed for good), assemble the prompt
 * (sections, canonical tools), project the runtime-context snapshot, and run `agent/pre-step`.
 * Nothing is written to the session here except the claim records.
 */
export async function propose(
  rt: AgentRuntime,
  target: InboxTarget,
  turn: number,
  step: number,
  signal: AbortSignal,
): Promise<Proposal> {
  // S1: synchronous, durable consumption.
  const claimed = rt.inbox.claim(target, turn)
  // S2–S4: providers evaluated now; sections ordered; tools in canonical order (or toolOrder).
  const assembly = await service(rt, 'systemPrompt').assemble({ agent: rt.agent, scope: rt.agent, signal })
  signal.throwIfAborted()
  // S5: contexts rendered strictly into one snapshot, skipped when the model already sees it.
  const sections = renderContextSections(assembly)
  const contextMsg = rt.projection.project(joinContextSections(sections), sections)
  // S6
  const decision = await preStep(rt, claimed, contextMsg, turn, step, signal)
  signal.throwIfAborted()
  return { decision, assembly }
}
