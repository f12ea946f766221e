/**
 * The example query a tool description shows after `Example (default catalog): `, parsed out of
 * the text as an agent would read it: the JSON object that starts there, up to its closing brace.
 */
export function exampleQueryOf(description: string): unknown {
  const marker = 'Example (default catalog): ';
  const start = description.indexOf(marker);
  if (start < 0) throw new Error('the description shows no example query');
  const text = description.slice(start + marker.length);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return JSON.parse(text.slice(0, i + 1));
  }
  throw new Error('the example query in the description is not closed');
}
