import type { BlockView, MessageView } from '../types.js'
import { Text } from './components.js'

function Block({ block }: { block: BlockView }) {
  switch (block.type) {
    case 'text':
      return <Text text={block.text} />
    case 'reasoning':
      return (
        <details class="reasoning">
          <summary>reasoning</summary>
          <Text text={block.text} />
        </details>
      )
    case 'tool-call':
      return (
        <div class="block tool-call">
          call <span class="tool-name">{block.name}</span> <code>{block.arguments}</code>{' '}
          <span class="muted">{block.id}</span>
        </div>
      )
    case 'tool-result':
      return (
        <div class={block.isError ? 'block tool-result error' : 'block tool-result'}>
          <span class="who">
            {block.isError ? 'error result' : 'result'} for {block.toolCallId}
          </span>
          <Text text={block.text} />
        </div>
      )
    default:
      return <div class="block muted">[{block.label}]</div>
  }
}

/** One message of a request: role, source, the event that put it there, and its blocks. */
export function MessageCard({ message, index }: { message: MessageView; index?: number }) {
  return (
    <li
      class={`message ${message.role}${message.replacement ? ' replacement' : ''}`}
      id={index === undefined ? undefined : `message-${index}`}
      data-index={index}
    >
      <div class="message-head">
        {index !== undefined ? <span class="index">{index}.</span> : null} <strong>{message.role}</strong> ·{' '}
        {message.source}
        {message.seq !== undefined ? (
          <span class="muted">
            {' '}
            · {message.eventType} seq {message.seq}
          </span>
        ) : null}
        {message.replacement ? <span class="tag">compaction checkpoint</span> : null}
      </div>
      {message.blocks.map((block, i) => (
        <Block key={i} block={block} />
      ))}
    </li>
  )
}
