/**
 * The explorer's layout rules. The page's Content-Security-Policy allows style sheets from this
 * server only (no <style> element, no style attribute); a constructed style sheet adopted by the
 * document is made by this script, which the same policy already trusts, so the explorer's rules
 * travel with its code. Colours are app.css's variables (contrast kept there); the grids fold to
 * one column at a phone's width.
 */
const RULES = `
.explorer-form { display: grid; gap: 0.75rem; }
.explorer-form fieldset {
  border: 1px solid var(--line); border-radius: 6px; margin: 0; min-width: 0;
  padding: 0.5rem 0.75rem 0.75rem;
}
.explorer-form legend { font-weight: 600; padding: 0 0.25rem; }
.explorer-form .hint { display: block; margin: 0.15rem 0; }
.choices {
  list-style: none; margin: 0.25rem 0; padding: 0; display: grid; gap: 0.35rem 1rem;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 15rem), 1fr));
}
.choices.inline { display: flex; flex-wrap: wrap; }
.choice { display: flex; gap: 0.45rem; align-items: flex-start; }
.choice input { width: 1.15rem; height: 1.15rem; margin: 0.15rem 0 0; flex: none; }
.choice label { cursor: pointer; }
.explorer-form .field { display: flex; flex-direction: column; gap: 0.15rem; min-width: 0; }
.explorer-form .row { display: flex; flex-wrap: wrap; gap: 0.5rem 0.75rem; align-items: flex-end; }
.explorer-form .row .field { flex: 1 1 12rem; max-width: 100%; }
.filter-row { padding: 0.5rem 0; border-bottom: 1px solid var(--band); }
.explorer-form input[type='text'], .explorer-form select { max-width: 100%; }
.explorer-actions button { min-width: 6rem; }
.problems { color: var(--error-ink); }
.problems p { margin: 0.25rem 0; }
.explorer-result { margin-top: 1.25rem; }
.copy-as { display: grid; gap: 1rem; margin-top: 1.5rem; }
.copy-as h2 { margin: 0; }
.copy-block label { font-weight: 600; }
.copy-text {
  display: block; width: 100%; box-sizing: border-box; resize: vertical;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem;
  color: var(--ink); background: var(--band); border: 1px solid var(--line); border-radius: 4px;
  padding: 0.5rem;
}
.copy-actions { display: flex; gap: 0.75rem; align-items: center; margin-top: 0.35rem; }
`;

let installed = false;

export function installExplorerStyle(): void {
  if (installed) return;
  installed = true;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(RULES);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
