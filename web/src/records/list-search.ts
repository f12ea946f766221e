import { h, replace } from '../dom.js';
import { field } from '../form-controls.js';
import type { Session } from '../session/session.js';
import { mayCall } from '../session/reach.js';
import { workerNamesOf } from '../session/names.js';
import { supplierChoices, workerChoices, type Choice } from './choices.js';
import {
  label,
  paramsOf,
  periodParams,
  workerParam,
  type ListSearch,
  type Order,
  type Searched,
} from './search-fields.js';
import { foldedWords } from './search-words.js';

/*
 * A list's search form: the API's list filters (DESIGN §4.15) as a person fills them in, and the
 * order. What is asked lives in the address (`#/records/invoices?status=draft&order=asc`), so a
 * search can be bookmarked, shared and gone back to.
 */

/** Newest first unless the address says otherwise. */
export const DEFAULT_ORDER: Order = 'desc';

/** The search an address's query part holds: the list's own filters only, each once, not empty. */
export function searchOf(query: string, list: Searched): ListSearch {
  const given = new URLSearchParams(query);
  const filters: Record<string, string> = {};
  for (const name of list.filters.flatMap(paramsOf)) {
    const value = given.get(name)?.trim();
    if (value) filters[name] = value;
  }
  const asc = given.get('order') === 'asc' && !list.unordered;
  return { filters, order: asc ? 'asc' : DEFAULT_ORDER };
}

/** The address of a list (`#/records/<key>`, or the list's own) with a search. */
export function addressOf(listAddress: string, search: ListSearch): string {
  const query = new URLSearchParams(search.filters);
  if (search.order !== DEFAULT_ORDER) query.set('order', search.order);
  const text = query.toString();
  return `${listAddress}${text ? `?${text}` : ''}`;
}

function input(id: string, type: string, value: string, extra: Record<string, string> = {}) {
  return h('input', { id, name: id, type, value, ...extra }) as HTMLInputElement;
}

function choiceSelect(id: string, any: string, choices: readonly Choice[], value: string) {
  return h(
    'select',
    { id, name: id },
    h('option', { value: '' }, any),
    ...choices.map((c) => h('option', { value: c.value, selected: c.value === value }, c.label)),
  ) as HTMLSelectElement;
}

/** What one field of the form adds to the search's filters. */
type FieldReader = () => Record<string, string> | Promise<Record<string, string>>;

/**
 * The form. Applying it moves to the search's address (the page reads it from there); a worker
 * is typed by name where the token may read names (a list of them is offered as one types), or
 * by id.
 */
export async function searchForm(
  session: Session,
  list: Searched,
  search: ListSearch,
): Promise<HTMLElement> {
  const prefix = `search-${list.key}`;
  const controls: HTMLElement[] = [];
  const readers: FieldReader[] = [];
  // What the folded line names suppliers and workers by.
  let supplierLabels: readonly Choice[] = [];
  let workerLabels: readonly Choice[] = [];
  for (const f of list.filters) {
    if (f.kind === 'choice') {
      const id = `${prefix}-${f.param}`;
      const values = f.values.map((v) => ({ value: v, label: label(v) }));
      const control = choiceSelect(id, 'Any', values, search.filters[f.param] ?? '');
      controls.push(field(id, f.label, control));
      readers.push(() => ({ [f.param]: control.value }));
    } else if (f.kind === 'text') {
      const id = `${prefix}-${f.param}`;
      const control = input(id, 'search', search.filters[f.param] ?? '', {
        autocomplete: 'off',
        class: 'text-filter',
      });
      controls.push(field(id, f.label, control));
      readers.push(() => ({ [f.param]: control.value.trim() }));
    } else if (f.kind === 'supplier') {
      const id = `${prefix}-supplier`;
      supplierLabels = await supplierChoices(session);
      const control = choiceSelect(
        id,
        'Any supplier',
        supplierLabels,
        search.filters.supplierId ?? '',
      );
      controls.push(field(id, 'Supplier', control));
      readers.push(() => ({ supplierId: control.value }));
    } else if (f.kind === 'worker') {
      const id = `${prefix}-worker`;
      const param = workerParam(f);
      const current = search.filters[param] ?? '';
      const box = await workerBox(session, id, current);
      workerLabels = box.labels;
      controls.push(
        field(
          id,
          box.named ? 'Worker (name or id)' : 'Worker id',
          box.control,
          box.named ? undefined : 'Names need the read:pii scope.',
        ),
        box.names,
      );
      readers.push(() => ({ [param]: idOfTyped(box.control.value) }));
    } else {
      const [fromParam, toParam] = periodParams(f);
      const from = input(`${prefix}-from`, 'date', search.filters[fromParam] ?? '');
      const to = input(`${prefix}-to`, 'date', search.filters[toParam] ?? '');
      const label = f.label ?? 'Period';
      controls.push(
        field(`${prefix}-from`, `${label} from`, from),
        field(`${prefix}-to`, `${label} to`, to),
      );
      readers.push(() => ({ [fromParam]: from.value, [toParam]: to.value }));
    }
  }
  const order = list.unordered
    ? null
    : choiceSelect(
        `${prefix}-order`,
        'Newest first',
        [{ value: 'asc', label: 'Oldest first' }],
        search.order === 'asc' ? 'asc' : '',
      );
  if (order) controls.push(field(`${prefix}-order`, 'Order', order));
  const form = h(
    'form',
    { class: 'list-search', id: `${prefix}-form`, role: 'search', 'aria-label': 'Find records' },
    ...controls,
    h(
      'div',
      { class: 'search-actions' },
      h('button', { type: 'submit' }, 'Search'),
      h('a', { href: addressOf(list.address, { filters: {}, order: DEFAULT_ORDER }) }, 'Clear'),
    ),
  ) as HTMLFormElement;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submit = form.querySelector<HTMLButtonElement>('button[type=submit]');
    if (submit?.disabled) return;
    // One search at a time: the button waits while a worker's name is looked up.
    if (submit) submit.disabled = true;
    void goToSearch(readers, order, list.address).finally(() => {
      if (submit) submit.disabled = false;
    });
  });
  return folding(form, foldedWords(search, list.filters, supplierLabels, workerLabels));
}

/**
 * The form in its band. Once a search has run (`words` says what it searched for), a narrow
 * screen shows that in one line with "Change" instead of the form, so the results start on the
 * first screen; "Change" unfolds the form. A wide screen always shows the form (records.css).
 */
function folding(form: HTMLFormElement, words: string): HTMLElement {
  const band = h('div', { class: 'search-band' }, form);
  if (!words) return band;
  const change = h(
    'button',
    {
      type: 'button',
      class: 'secondary small',
      'aria-controls': form.id,
      'aria-expanded': 'false',
    },
    'Change',
  );
  change.addEventListener('click', () => {
    band.classList.remove('folded');
    change.setAttribute('aria-expanded', 'true');
    form.querySelector<HTMLElement>('input, select')?.focus();
  });
  band.classList.add('folded');
  band.prepend(
    h('p', { class: 'search-summary' }, h('span', { class: 'search-words' }, words), ' — ', change),
  );
  return band;
}

/** What a worker box holds as the API's id: the id a "name · id" choice ends with, or as typed. */
export function idOfTyped(typed: string): string {
  const text = typed.trim();
  const labelled = / · ([A-Za-z0-9][A-Za-z0-9_.:-]{0,63})$/.exec(text);
  return labelled ? labelled[1] : text;
}

/**
 * The worker box: the worker searched for as "name · id" where the token may read names (the
 * name asked with the page's other names, session/names.ts), and the workers offered by name
 * once the box is first used (focus or typing), not with the page: reading up to 2,000 names
 * takes twenty requests that a person who never searches by worker does not need.
 */
async function workerBox(session: Session, id: string, current: string) {
  const named = mayCall(session.reach, 'list_workers') && session.reach.scopes.has('read:pii');
  const name = named && current ? (await workerNamesOf(session, [current])).get(current) : null;
  const shown = name ? `${name.value} · ${current}` : current;
  const labels: Choice[] = name ? [{ value: current, label: shown }] : [];
  const listId = `${id}-names`;
  const control = input(id, 'search', shown, {
    list: listId,
    autocomplete: 'off',
    class: 'worker-filter',
  });
  const names = h('datalist', { id: listId });
  const options = (among: readonly Choice[]) => among.map((w) => h('option', { value: w.label }));
  let offered = !named;
  const offer = () => {
    if (offered) return;
    offered = true;
    const choices = workerChoices(session);
    void choices.first.then((first) => replace(names, ...options(first)));
    void choices.all.then((all) => replace(names, ...options(all)));
  };
  control.addEventListener('focus', offer);
  control.addEventListener('input', offer);
  return { named, control, names, labels };
}

/** Moves to the address of what the form says. */
async function goToSearch(
  readers: readonly FieldReader[],
  order: HTMLSelectElement | null,
  listAddress: string,
): Promise<void> {
  const filters: Record<string, string> = {};
  for (const read of readers)
    for (const [name, value] of Object.entries(await read())) if (value) filters[name] = value;
  location.hash = addressOf(listAddress, {
    filters,
    order: order?.value === 'asc' ? 'asc' : 'desc',
  });
}
