import { h } from './dom.js';

/**
 * The explorer's native controls, each with its label (so the form works by keyboard and with a
 * screen reader as the browser makes them): selects, fields, checkboxes, radios, fieldsets.
 */

export type Option = { value: string; label: string };

export function select(
  id: string,
  options: Option[],
  value: string,
  onChange: (value: string) => void,
): HTMLSelectElement {
  const element = h(
    'select',
    { id, name: id },
    ...options.map((o) => h('option', { value: o.value, selected: o.value === value }, o.label)),
  ) as HTMLSelectElement;
  element.addEventListener('change', () => onChange(element.value));
  return element;
}

export const field = (id: string, label: string, control: HTMLElement, hint?: string) =>
  h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : null,
  );

export function checkbox(
  id: string,
  checked: boolean,
  label: string | Node,
  detail: string,
  onChange: (checked: boolean) => void,
  title?: string,
): HTMLElement {
  const input = h('input', {
    type: 'checkbox',
    id,
    value: id,
    checked,
    'aria-describedby': detail ? `${id}-detail` : undefined,
  }) as HTMLInputElement;
  input.addEventListener('change', () => onChange(input.checked));
  return h(
    'li',
    { class: 'choice' },
    input,
    h(
      'label',
      { for: id, title },
      label,
      detail ? h('span', { class: 'hint', id: `${id}-detail` }, detail) : null,
    ),
  );
}

export function radio(
  name: string,
  value: string,
  checked: boolean,
  label: string | Node,
  onChange: () => void,
  id = `${name}-${value}`,
): HTMLElement {
  const input = h('input', { type: 'radio', name, id, value, checked }) as HTMLInputElement;
  input.addEventListener('change', () => input.checked && onChange());
  return h('li', { class: 'choice' }, input, h('label', { for: id }, label));
}

/** One part of the form: a fieldset named by its legend. */
export const section = (id: string, legend: string, ...children: (Node | string | null)[]) =>
  h('fieldset', { id }, h('legend', {}, legend), ...children);
