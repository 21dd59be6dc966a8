#!/usr/bin/env node
// Runs the official MCP conformance suite in server mode against conformance/fixtures.html
// through the page bridge, once per requirement set, then the server scenarios no requirement
// set names (the Skills extension's, SEP-2640) one by one, and checks the outcome against
// conformance/expected-failures.txt. Start it with conformance/official.sh, which provides the
// Node (>= 22) and the suite this needs.
//
//   node conformance/official.mjs [--requirements 2025-11-25,2026-07-28,extensions] [--keep] [--verbose]
//
// Prints, per requirement set, every scenario that failed (with its failing checks) and the
// tallies; exits 1 when a scenario fails that expected-failures.txt does not list, or a listed
// one passes (or is no longer run), so the list stays true.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBridge } from './bridge.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITE_CLI = path.join(HERE, '.tools/node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED = path.join(HERE, 'expected-failures.txt');
export const REQUIREMENTS = ['2025-11-25', '2026-07-28', 'extensions'];
/** Server scenarios of the suite that no requirement set runs (`--scenario` each, at the latest release). */
export const EXTENSION_SCENARIOS = ['sep-2640-skills-directory', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest'];

/** `<requirements> <scenario> # reason` lines → Map("req scenario" → reason). */
export function readExpected(file = EXPECTED) {
  const map = new Map();
  if (!fs.existsSync(file)) return map;
  for (const [i, raw] of fs.readFileSync(file, 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(\S+)\s+(\S+)\s*#\s*(.+)$/.exec(line);
    if (!m) throw new Error(`${path.basename(file)}:${i + 1}: expected "<requirements> <scenario> # reason", got ${JSON.stringify(raw)}`);
    map.set(`${m[1]} ${m[2]}`, m[3].trim());
  }
  return map;
}

function runSuite(url, requirements, outDir, verbose, scenario) {
  return new Promise((resolve, reject) => {
    const select = scenario ? ['--scenario', scenario] : ['--requirements', requirements];
    const args = [SUITE_CLI, 'server', '--url', url, ...select, '-o', outDir];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (verbose) process.stderr.write(d);
    });
    child.stderr.on('data', (d) => {
      out += d;
      if (verbose) process.stderr.write(d);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** The suite's summary: [{ scenario, pass, checksPassed, checksFailed, scored }]. */
export function parseSummary(out) {
  const summary = out.slice(out.indexOf('=== SUMMARY ==='));
  const rows = [];
  for (const line of summary.split('\n')) {
    const m = /^([✓✗]) (\S+): (\d+) passed, (\d+) failed/.exec(line.trim());
    if (m) rows.push({ scenario: m[2], pass: m[1] === '✓', checksPassed: Number(m[3]), checksFailed: Number(m[4]), scored: true });
  }
  const notScored = summary.slice(summary.indexOf('Not scored'));
  for (const line of notScored.split('\n')) {
    const m = /^\s+[✓✗] (\S+) \(/.exec(line);
    const row = m && rows.find((r) => r.scenario === m[1]);
    if (row) row.scored = false;
  }
  return rows;
}

/** The checks of `scenario` from the suite's results directory (`[]` when there are none). */
function checksOf(outDir, scenario) {
  const dir = fs.existsSync(outDir) && fs.readdirSync(outDir).find((d) => d.startsWith(`server-${scenario}-`) && /\d{4}-\d\d-\d\dT/.test(d.slice(`server-${scenario}-`.length)));
  if (!dir) return [];
  try {
    return JSON.parse(fs.readFileSync(path.join(outDir, dir, 'checks.json'), 'utf8'));
  } catch {
    return [];
  }
}

/** The failing checks of `scenario` from the suite's results directory. */
function failingChecks(outDir, scenario) {
  return checksOf(outDir, scenario)
    .filter((c) => c.status === 'FAILURE')
    .map((c) => `${c.id}: ${c.errorMessage ?? ''}`.slice(0, 300));
}

/**
 * One scenario run with `--scenario` ("Passed: n/m, f failed, w warnings"): a summary row, with
 * its checks counted by status from checks.json (skipped checks are reported, not hidden).
 */
function scenarioRow(out, outDir, scenario) {
  const checks = checksOf(outDir, scenario);
  const count = (s) => checks.filter((c) => c.status === s).length;
  const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out);
  if (!m && !checks.length) return null;
  const failed = checks.length ? count('FAILURE') : Number(m[3]);
  return {
    scenario,
    pass: failed === 0,
    checksPassed: checks.length ? count('SUCCESS') : Number(m[1]),
    checksFailed: failed,
    skipped: count('SKIPPED'),
    warnings: count('WARNING'),
    scored: false,
  };
}

async function main(argv) {
  const args = argv.slice(2);
  const value = (f) => {
    const i = args.indexOf(f);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const requirements = (value('--requirements') ?? REQUIREMENTS.join(',')).split(',').filter(Boolean);
  const keep = args.includes('--keep');
  const verbose = args.includes('--verbose');
  if (!fs.existsSync(SUITE_CLI)) {
    console.error('official: the suite is not installed; run conformance/official.sh');
    return 2;
  }
  const expected = readExpected();
  const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));
  const started = Date.now();
  const log = verbose ? (l) => process.stderr.write(`[bridge] ${l}\n`) : (l) => l.startsWith('page error') && process.stderr.write(`[bridge] ${l}\n`);
  const bridge = await startBridge({ page: path.join(HERE, 'fixtures.html'), http: 0, log });
  const problems = [];
  const tallies = [];
  try {
    console.log(`official MCP conformance suite (@modelcontextprotocol/conformance) → ${bridge.url} (page ${bridge.host.url})`);
    for (const req of requirements) {
      const outDir = path.join(outRoot, req);
      const t0 = Date.now();
      let code;
      let out;
      let rows;
      if (req === 'extensions') {
        rows = [];
        out = '';
        for (const scenario of EXTENSION_SCENARIOS) {
          const r = await runSuite(bridge.url, req, outDir, verbose, scenario);
          out += r.out;
          code = r.code;
          const row = scenarioRow(r.out, outDir, scenario);
          if (row) rows.push(row);
          else problems.push(`extensions ${scenario}: the suite printed no result (exit ${r.code})`);
        }
      } else {
        ({ code, out } = await runSuite(bridge.url, req, outDir, verbose));
        rows = parseSummary(out);
      }
      if (!rows.length) {
        problems.push(`${req}: the suite printed no summary (exit ${code})`);
        console.log(out.split('\n').slice(-30).join('\n'));
        continue;
      }
      const seconds = ((Date.now() - t0) / 1000).toFixed(1);
      console.log(`\n--requirements ${req}  (${rows.length} scenarios, ${seconds} s)`);
      for (const r of rows.filter((x) => x.skipped || x.warnings)) {
        console.log(`  ${r.scenario}: ${r.checksPassed} checks passed, ${r.checksFailed} failed, ${r.skipped} skipped, ${r.warnings} warnings`);
      }
      for (const r of rows) {
        const k = `${req} ${r.scenario}`;
        const listed = expected.has(k);
        const tag = r.scored ? '' : ' (not scored)';
        if (!r.pass && listed) {
          console.log(`  expected failure  ${r.scenario}${tag}: ${r.checksFailed} failed checks — ${expected.get(k)}`);
        } else if (!r.pass) {
          console.log(`  FAIL              ${r.scenario}${tag}: checks passed ${r.checksPassed}, checks failed ${r.checksFailed}`);
          for (const c of failingChecks(outDir, r.scenario)) console.log(`                      ${c}`);
          problems.push(`${req} ${r.scenario}: fails, and expected-failures.txt does not list it`);
        } else if (listed) {
          console.log(`  PASSES NOW        ${r.scenario}${tag}: remove it from expected-failures.txt`);
          problems.push(`${req} ${r.scenario}: passes, but expected-failures.txt lists it`);
        }
      }
      for (const k of expected.keys()) {
        const [r, s] = k.split(' ');
        if (r === req && !rows.some((x) => x.scenario === s)) problems.push(`${k}: listed in expected-failures.txt but not run`);
      }
      const scored = rows.filter((r) => r.scored);
      const t = {
        req,
        scoredPassed: scored.filter((r) => r.pass).length,
        scored: scored.length,
        notScoredPassed: rows.filter((r) => !r.scored && r.pass).length,
        notScored: rows.length - scored.length,
        checksPassed: rows.reduce((a, r) => a + r.checksPassed, 0),
        checksFailed: rows.reduce((a, r) => a + r.checksFailed, 0),
      };
      tallies.push(t);
      console.log(
        `  ${req}: required scenarios ${t.scoredPassed}/${t.scored} passed; not scored ${t.notScoredPassed}/${t.notScored} passed; checks passed ${t.checksPassed}, checks failed ${t.checksFailed}`,
      );
    }
  } finally {
    await bridge.close();
    if (keep) console.log(`\nresults kept in ${outRoot}`);
    else fs.rmSync(outRoot, { recursive: true, force: true });
  }
  const said = (t) => (t.scored ? `${t.req} ${t.scoredPassed}/${t.scored} required scenarios passed` : `${t.req} ${t.notScoredPassed}/${t.notScored} scenarios passed`);
  console.log(`\nofficial suite: ${tallies.map(said).join('; ')} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (problems.length) {
    console.log(`\n${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`);
    return 1;
  }
  console.log('every failure is listed in conformance/expected-failures.txt');
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e.stack || e.message);
      process.exit(2);
    },
  );
}
