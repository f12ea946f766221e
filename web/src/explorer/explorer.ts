import type { ExplorerCatalog, ReportAnswer } from '../types.js';
import { copyAsView } from './copy-as.js';
import { valuesSource, type ValuesSource } from './dimension-values.js';
import { h } from '../dom.js';
import { explorerForm } from './explorer-form.js';
import {
  bodyInHash,
  explorerHref,
  bodyOf,
  hashOf,
  problemsOf,
  stateOfBody,
  type ExplorerState,
} from './explorer-query.js';
import { resultView } from '../report/result-view.js';
import type { Session } from '../session/session.js';
import { errorView } from '../error-view.js';
import { namesOf } from '../session/names.js';
import { dataCache } from '../session/data-follow.js';

/** Each session's dimension values, asked once per dimension and data mark. */
const sessionValues = dataCache<ValuesSource>();

function valuesOf(session: Session, catalog: ExplorerCatalog): ValuesSource {
  return sessionValues(session, () =>
    valuesSource(catalog, (body) => session.client.call('run_semantic_query', body as never)),
  );
}

/**
 * The explorer (issue 14, item 3): a form over the token's catalog offering only choices that go
 * together, Run draws the answer (chart, table, truncation continued through nextCursor), and
 * "Copy as" gives the very body that ran as curl, MCP and typed-client code. The body is kept in
 * the address (#/explorer/<body>), so the page can be reloaded or shared and runs it again.
 */
export async function explorerView(session: Session): Promise<HTMLElement> {
  const catalog = session.catalog as ExplorerCatalog;
  const initial = stateOfBody(catalog, bodyInHash(location.hash));
  const result = h('section', {
    class: 'explorer-result',
    'aria-label': 'Result',
    'aria-live': 'polite',
  });
  const copyAs = h('div', { class: 'copy-as-slot' });
  let latest = 0;

  const run = async (state: ExplorerState) => {
    const body = bodyOf(catalog, state);
    const mine = ++latest;
    // replaceState: the address follows the query without a hashchange (which would redraw).
    history.replaceState(history.state, '', hashOf(body));
    result.replaceChildren(h('p', { class: 'loading' }, 'Running…'));
    copyAs.replaceChildren(copyAsView(location.origin, body));
    const call = (cursor?: string) =>
      session.client.call(
        'run_semantic_query',
        (cursor ? { ...body, cursor } : body) as never,
      ) as Promise<ReportAnswer>;
    try {
      const [answer, names] = await Promise.all([call(), namesOf(session)]);
      if (mine === latest)
        result.replaceChildren(
          resultView(answer, {
            timeKeys: session.timeKeys,
            names,
            title: 'Explorer result',
            more: call,
            pick:
              answer.status === 'refused'
                ? undefined
                : (filters) => {
                    location.hash = explorerHref(answer.semanticQuery, filters);
                  },
          }),
        );
    } catch (error) {
      if (mine === latest) result.replaceChildren(errorView(error));
    }
  };

  const view = h(
    'div',
    { class: 'explorer' },
    h('h1', {}, 'Explorer'),
    h(
      'p',
      { class: 'hint' },
      'Build a report from this workspace’s catalog; only choices that go together are offered.',
    ),
    explorerForm(catalog, initial, (state) => void run(state), valuesOf(session, catalog)),
    result,
    copyAs,
  );
  if (initial.metrics.length > 0 && problemsOf(initial).length === 0) void run(initial);
  return view;
}
