import { createUserMessage, type UserMessage } from '@bridle/llm'

/** The plugin name on the sources of the messages this plugin writes. */
export const COMPACTION_PLUGIN = '@bridle/plugin-compaction'

/** The summary request's last message: the configured instructions (source form `instructions`). */
export function instructionMessage(instructions: string): UserMessage {
  return createUserMessage(instructions, { kind: 'plugin', plugin: COMPACTION_PLUGIN, form: 'instructions' })
}

/** The first line of every checkpoint, so a reader (and the model) can tell the summary from the conversation. */
export function checkpointPreamble(replaced: number): string {
  return `Summary of the earlier conversation (it replaces ${replaced} earlier message${replaced === 1 ? '' : 's'}; the messages after it are verbatim):`
}

/** The checkpoint that replaces the summarized messages: the preamble and the summary (source form `recall`). */
export function checkpointMessage(summary: string, replaced: number): UserMessage {
  return createUserMessage(`${checkpointPreamble(replaced)}\n\n${summary}`, {
    kind: 'plugin',
    plugin: COMPACTION_PLUGIN,
    form: 'recall',
  })
}
