import { build } from 'esbuild';

/**
 * A module of the web page (web/src/<name>.ts) loaded into Node for tests of its logic: bundled by
 * esbuild as the page's build does (the same sources, the DOM left to callers that use it) and
 * imported from a data: URL.
 */
export async function pageModule<T>(name: string): Promise<T> {
  const out = await build({
    entryPoints: [`web/src/${name}.ts`],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0].text;
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as T;
}
