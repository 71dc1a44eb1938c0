/**
 * The model's own chat template (the Jinja text in its GGUF metadata), rendered as llama-server renders it
 * for `/apply-template`: `add_generation_prompt`, the model's BOS/EOS texts, and no leading BOS text (the
 * BOS token is added at tokenisation). One rendering serves counting and generation, so they cannot differ.
 */
import { Template } from '@huggingface/jinja';
import { HubError } from '../../errors';
import type { ChatMessage } from '../types';

/** llama.cpp's fallback when a GGUF carries no template. */
export const CHATML_TEMPLATE =
  "{%- for message in messages -%}{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}{%- endfor -%}" +
  "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}";

export interface TemplateTokens {
  bos: string;
  eos: string;
}

/** OpenAI content parts become their text joined (the hub sends strings; clients of legs may send parts). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('');
  }
  return JSON.stringify(content);
}

export class ChatTemplate {
  private readonly template: Template;

  constructor(source: string | undefined, private readonly tokens: TemplateTokens) {
    this.template = new Template(source && source.trim() !== '' ? source : CHATML_TEMPLATE);
  }

  /** The prompt text for `messages`; a template error (roles out of order, say) is the caller's bad request. */
  render(messages: readonly ChatMessage[], extra: { tools?: unknown } = {}): string {
    const rendered = this.renderRaw(messages.map((m) => ({ ...m, role: m.role, content: contentText(m.content) })), extra);
    return this.tokens.bos !== '' && rendered.startsWith(this.tokens.bos) ? rendered.slice(this.tokens.bos.length) : rendered;
  }

  private renderRaw(messages: Array<Record<string, unknown>>, extra: { tools?: unknown }): string {
    try {
      return this.template.render({
        messages,
        add_generation_prompt: true,
        bos_token: this.tokens.bos,
        eos_token: this.tokens.eos,
        ...(extra.tools !== undefined ? { tools: extra.tools } : {}),
      });
    } catch (err) {
      const why = err instanceof Error ? err.message.split('\n')[0].slice(0, 200) : 'template error';
      throw new HubError('router_error', `The model's chat template rejected the messages: ${why}`, { extra: { source: 'embedded-llama' } });
    }
  }
}
