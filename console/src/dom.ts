/**
 * The console's only way to make DOM: elements with attributes and children, where every string becomes a
 * text node. No innerHTML anywhere, so chart and model text (`<img src=x onerror=…>` in a chart line) shows
 * as the characters it is, whatever it holds.
 */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  id?: string;
  /** Plain attributes; an `on…` name is refused (handlers go through `on`). */
  attrs?: Record<string, string | number | boolean | undefined>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.id) node.id = props.id;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (/^on/i.test(name)) throw new Error(`el(): event attribute ${name} refused`);
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [type, handler] of Object.entries(props.on ?? {})) node.addEventListener(type, handler as EventListener);
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces every child of `parent` (text stays text). */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}

export function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`console: #${id} is missing from the page`);
  return node as T;
}
