/**
 * An import in one pass over its files (docs/importer.md): each row read once, checked by the
 * row rules (row-rules.ts), its keys noted as it arrives (key-index.ts), judged against the
 * stored row of its id (stored-rows.ts), its references resolved, and written at once by the
 * store's load writer, all in the load's one transaction. The first problem ends the writing:
 * the transaction is rolled back then and there, the rest of the files still checked (against
 * the store as it was before the load) so that every problem is reported, and nothing is
 * written. Only a chunk of text, a batch of rows and the keys' fingerprints are held in memory.
 */
import type { Deletion, Load, LoadOptions, LoadResult } from '../store/load/load.js';
import type { AdminWrites, IdRange } from '../store/store.js';
import type { ImportProblem, ProblemSink } from './import-problems.js';
import { DELETIONS, type ImportTable } from './import-tables.js';
import { KeyIndex } from './key-index.js';
import { checkRow, type RowOptions } from './row-rules.js';
import { checkStaged, type StagedTable } from './staged-checks.js';
import { judgeStoredRows, type CheckedRow } from './stored-rows.js';
import { CHUNK_BYTES } from './read-directory.js';
import { NotUtf8Error, streamSource, type SourceFile } from './source-files.js';

/** A source file and a way to read its text, in chunks (of CHUNK_BYTES, when its size is known). */
export interface ImportSource extends SourceFile {
  text(): AsyncIterable<string>;
  bytes?: number;
}

/** What an import asks of the store (`storedIdRange` spares asking about ids beyond a table's). */
type ImportStore = Pick<AdminWrites, 'storedRows' | 'openLoad'> &
  Partial<Pick<AdminWrites, 'storedIdRange'>>;

/** Rows handed to the load writer at once. */
const BATCH = 1000;

/**
 * Checks and loads the sources (in dependency order, deletions last) into one workspace. Returns
 * what the load did, or null when a problem was found (every one pushed to `problems`, nothing
 * written). `failed` says problems were found before (the directory's listing): nothing is
 * written, the files are only checked.
 */
export async function importSources(
  sources: readonly ImportSource[],
  options: Omit<RowOptions, 'format'>,
  store: ImportStore,
  problems: ProblemSink,
  { failed = false, loadOptions = {} }: { failed?: boolean; loadOptions?: LoadOptions } = {},
): Promise<LoadResult | null> {
  const pass = new ImportPass(options, store, problems, failed);
  try {
    if (!failed) pass.openedLoad(await store.openLoad(loadOptions));
    for (const source of sources) await pass.read(source);
    await pass.finishStaged();
    await pass.stopWriting();
    return pass.load ? await pass.load.finish() : null;
  } catch (error) {
    await pass.stopWriting(true);
    throw error;
  }
}

class ImportPass {
  /** The open load while no problem has been found. */
  load: Load | null = null;
  private readonly keys: KeyIndex;
  private readonly problems: ProblemSink;
  /** Codes stored suppliers held that this load's rows change (key-index.ts). */
  private readonly released = new Map<string, string>();
  /**
   * The tables staged so far, when the load stages its rows (PostgreSQL, staged-checks.ts): the
   * load then stays open to the end, whatever is found, for the checks asked of the staged rows.
   */
  private staged: StagedTable[] | null = null;
  /** Each table's ids' range before the load wrote it (null: empty), read at its first batch. */
  private readonly ranges = new Map<ImportTable, IdRange | null>();

  constructor(
    private readonly options: Omit<RowOptions, 'format'>,
    private readonly store: ImportStore,
    sink: ProblemSink,
    private failed: boolean,
  ) {
    this.problems = {
      push: (problem: ImportProblem) => {
        this.failed = true;
        sink.push(problem);
      },
    };
    this.keys = new KeyIndex(options.workspaceId, this.problems);
  }

  /** The load opened before any file is read. */
  openedLoad(load: Load): void {
    this.load = load;
    if (load.staging) this.staged = [];
  }

  /** Ends the writing once a problem is found (or at once with `always`): nothing written. */
  async stopWriting(always = false): Promise<void> {
    if (!this.load || (!always && (!this.failed || this.staged))) return;
    const load = this.load;
    this.load = null;
    await load.abort();
  }

  async read(source: ImportSource): Promise<void> {
    const { file } = source;
    try {
      let first = true;
      for await (const rows of streamSource(source, source.text(), this.problems)) {
        // The file's rows, as many as its first chunk's per byte: its ids' room made at once.
        if (first && source.bytes !== undefined && source.table !== DELETIONS)
          this.keys.expect(source.table, Math.ceil((rows.length * source.bytes) / CHUNK_BYTES));
        first = false;
        const batch: CheckedRow[] = [];
        const codes: string[] = [];
        for (const { line, values } of rows) {
          const checked = checkRow(source.table, values, {
            ...this.options,
            format: source.format,
          });
          for (const message of checked.problems) this.problems.push({ file, line, message });
          const { row } = checked;
          if (source.table !== DELETIONS) {
            const code = this.keys.note(source.table, file, line, row);
            if (code !== null) codes.push(code);
          } else if (typeof row.type === 'string' && typeof row.id === 'string')
            this.keys.noteDeletion(file, line, row.type, row.id);
          batch.push({ file, line, row, absent: checked.absent });
        }
        if (source.table === DELETIONS) await this.remove(batch);
        else if (this.staged) await this.stage(source.table, file, batch, codes);
        else await this.upsert(source.table, batch, codes);
      }
    } catch (error) {
      if (!(error instanceof NotUtf8Error)) throw error;
      this.problems.push({ file, message: error.message });
    }
  }

  /**
   * A batch of rows of a table: judged against the stored rows (read before the load's own
   * writes, or, while the load writes, with none of its ids written yet: a repeated id is a
   * problem that ends the writing first), its codes and references resolved, then written.
   */
  private async upsert(
    table: ImportTable,
    batch: readonly CheckedRow[],
    codes: readonly string[],
  ): Promise<void> {
    await this.stopWriting();
    const { store, options, problems } = this;
    const released = table === 'suppliers' ? this.released : undefined;
    if (!this.ranges.has(table) && store.storedIdRange)
      this.ranges.set(table, await store.storedIdRange(table));
    const held = await judgeStoredRows(
      store,
      table,
      options.workspaceId,
      batch,
      problems,
      released,
      this.ranges.get(table),
    );
    await this.keys.judgeCodes(store, codes, this.released);
    await this.keys.checkReferences(store, table, batch);
    await this.stopWriting();
    if (!this.load) return;
    for (let start = 0; start < batch.length; start += BATCH)
      await this.load.insertRead(
        table,
        batch.slice(start, start + BATCH).map((checked) => checked.row),
        held,
      );
  }

  /**
   * A batch of rows staged (PostgreSQL): checked across rows once every file is read
   * (`finishStaged`), as sets.
   */
  private async stage(
    table: ImportTable,
    file: string,
    batch: readonly CheckedRow[],
    codes: readonly string[],
  ): Promise<void> {
    const staged = this.staged as StagedTable[];
    let last = staged.at(-1);
    if (last?.table !== table) {
      if (staged.some((t) => t.table === table))
        throw new Error(`${table} staged from two files (${file})`);
      staged.push((last = { table, file, codes: [] }));
    }
    last.codes.push(...codes);
    await this.load?.staging?.stage(table, batch);
  }

  /**
   * The staged rows checked across rows (staged-checks.ts), then, if nothing was found, written
   * table by table; else the load is rolled back.
   */
  async finishStaged(): Promise<void> {
    const staging = this.load?.staging;
    if (!this.staged || !staging) return;
    const { store, options, problems, keys } = this;
    const staged = this.staged;
    this.staged = null;
    await checkStaged(staging, staged, keys, store, options.workspaceId, problems);
    if (this.failed) return;
    for (const { table } of staged) await staging.write(table);
  }

  /** Deletions are judged against the stored records as they apply, when the load finishes. */
  private async remove(batch: readonly CheckedRow[]): Promise<void> {
    await this.stopWriting();
    if (!this.load || this.failed) return;
    await this.load.remove(
      this.options.workspaceId,
      batch.map(({ file, line, row }) => ({
        type: row.type as Deletion['type'],
        id: String(row.id),
        deleted_at: String(row.deleted_at),
        file,
        line,
      })),
    );
  }
}
