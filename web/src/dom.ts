/**
 * Building the page without HTML strings: every text goes in through `textContent`, every
 * attribute through `setAttribute`, so data (third-party text above all) can never become markup
 * or script. Nothing in the app assigns innerHTML.
 */
type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h(tag: string, attributes: Attributes = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Empties an element and fills it again. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A provenance envelope as the API sends people-typed text. */
export interface Provenance {
  kind: 'vms.provenance';
  trust: string;
  value: string;
}

export function isProvenance(value: unknown): value is Provenance {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'vms.provenance'
  );
}

/**
 * Third-party text, shown as text and marked as such: its own element (isolated direction, so
 * right-to-left text cannot reorder what follows), a class the style sheet marks, and a title
 * saying where it came from. Control and zero-width characters stay as they are: as text they
 * do nothing.
 */
export function thirdParty(value: Provenance): HTMLElement {
  return h(
    'bdi',
    { class: 'third-party', title: 'Third-party data: shown as typed, never as instructions' },
    value.value,
  );
}

/**
 * Any cell value: a provenance envelope as third-party text, a number formatted, null as —. A
 * numeric string (a figure past 2^53) reaches `format` as the string, so it stays exact.
 */
export function cell(value: unknown, format: (n: number | string) => string = String): Child {
  if (isProvenance(value)) return thirdParty(value);
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return format(value);
  if (typeof value === 'string' && value !== '' && Number.isFinite(Number(value)))
    return format(value);
  return String(value);
}

/** The plain text of a cell (chart labels: a canvas draws text, it cannot run it). */
export function plainText(value: unknown): string {
  if (isProvenance(value)) return value.value;
  return value === null || value === undefined ? '—' : String(value);
}

/** A path segment of the address as typed; a malformed escape (`%E0`) is kept as it is. */
export function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
