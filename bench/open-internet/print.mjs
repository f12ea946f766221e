// The figures of the open-internet attacks as lines (run.mjs and the soak print them).
/** The figures as lines (the soak prints them too). */
export function printOpenInternet(results, print = console.log) {
  const s = (x) => (x ? `${x.p50Ms}/${x.p99Ms}/${x.maxMs} ms (${x.n}, ${x.failed} failed)` : '-');
  const load = (r) => (r.loadAverage ? ` [load average ${r.loadAverage.atStart.join(' ')}]` : '');
  print(
    `open internet (issue 44), ${results.store}, build ${results.build.commit?.slice(0, 7)}${results.build.uncommittedSrcChanges ? ' + uncommitted src' : ''}: p50/p99/max (count, failed)`,
  );
  for (const name of ['registrationFloodOneAddress', 'registrationFloodHundredAddresses']) {
    const r = results[name];
    if (!r) continue;
    if (r.error) {
      print(`  ${name}: ERROR ${r.error.split('\n')[0]}`);
      continue;
    }
    print(`  ${r.attack}${load(r)}`);
    print(`    answers ${JSON.stringify(r.flood.byStatus)} in ${r.flood.seconds} s`);
    print(
      `    sign-in alone ${s(r.person.alone.signIn)}; during ${s(r.person.duringFlood.signIn)}`,
    );
    print(
      `    refresh alone ${s(r.person.alone.refresh)}; during ${s(r.person.duringFlood.refresh)}`,
    );
    print(
      `    DB +${r.db.growthMb} MB; RSS MB before/peak/after ${r.rssMb.before}/${r.rssMb.peak}/${r.rssMb.after}; records added ${JSON.stringify(r.db.recordsAdded)}`,
    );
    for (const [target, t] of Object.entries(r.targets))
      print(`    ${t.result} ${target}: ${t.value}`);
  }
  const i = results.duringImport;
  if (i?.error) print(`  duringImport: ERROR ${i.error.split('\n')[0]}`);
  else if (i) {
    print(
      `  ${i.attack}${load(i)}: import ${i.import.seconds} s (exit ${i.import.code}), spanned ${i.measurementsSpan.spannedImport}; server RSS MB before/peak ${i.rssMb.before}/${i.rssMb.peak}`,
    );
    for (const [name, f] of Object.entries(i.measured))
      print(
        `    ${name.padEnd(13)} alone ${s(f.alone)}; during ${s(f.duringImport)}; after ${s(f.afterImport)}`,
      );
    for (const [target, t] of Object.entries(i.targets))
      print(`    ${t.result} ${target}: ${t.value}`);
  }
  const a = results.anonymousFlood;
  if (a?.error) print(`  anonymousFlood: ERROR ${a.error.split('\n')[0]}`);
  else if (a) {
    print(
      `  ${a.attack}${load(a)}: ${a.flood.requests} answers ${JSON.stringify(a.flood.byStatus)} in ${a.flood.seconds} s, ${a.flood.connectionsOpened} connections opened`,
    );
    print(
      `    victim alone ${s(a.victim.alone)}; during ${s(a.victim.duringFlood)}; RSS MB ${a.rssMb.before}/${a.rssMb.peak}/${a.rssMb.after}`,
    );
  }
  const m = results.registrationMemory;
  if (m?.error) print(`  registrationMemory: ERROR ${m.error.split('\n')[0]}`);
  else if (m) {
    print(`  ${m.attack}${load(m)}: answers ${JSON.stringify(m.answers)} in ${m.floodSeconds} s`);
    for (const c of m.checkpoints)
      print(
        `    ${c.label.padEnd(14)} clients stored ${String(c.clientsStored).padStart(6)}; RSS ${c.rssMb} MB; heap used/total ${c.heapUsedMb}/${c.heapTotalMb} MB`,
      );
    const live = m.heapSnapshots;
    if (live)
      print(
        `    live heap ${live.liveMbBefore} -> ${live.liveMbAfter} MB; grew most: ${live.grew
          .slice(0, 5)
          .map((g) => `${g.name} ${g.objects} (${g.kb} KB)`)
          .join(', ')}`,
      );
  }
  for (const r of Object.values(results))
    if (r?.serverLog?.errors?.length)
      print(`  server errors: ${r.serverLog.errors.map((e) => e.slice(0, 400)).join('\n    ')}`);
}
