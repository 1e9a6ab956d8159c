#!/usr/bin/env node
// Where ONNX Runtime (CPU) spends its time on a model, per op type: the counterpart of
// anvil-run --profile, for tools/op_profile_vs_ort.sh to put side by side with it.
//
//   ort_profile.js MODEL [--input-dir DIR] [--input NAME=FILE.pb]... [--shape NAME=D0,D1,...]...
//                  [--seed N] [--iters N] [--warmup N] [--threads N] [--no-opt] [--tsv]
//                  [--trace FILE]
//
// Inputs as in ../shared/bench/ort_run.js (whose onnxruntime-node install, ~/.cache/ort-bench or
// $ORT_BENCH_HOME, it uses; run ort_run.js once first): TensorProto files input_K.pb from
// --input-dir or --input NAME=FILE, else random (seeded) for the --shape dims. The session runs
// with ONNX Runtime's profiler on (enableProfiling: it can only be switched on at load, so the
// warmup runs are profiled too and are left out by their model_run events: only kernels inside
// the last --iters model_run spans count). Op types are the trace's op_name after ONNX Runtime's
// graph optimizations (FusedConv, NCHWc Conv with ReorderInput/ReorderOutput, ...), without
// their domain.
//
// Prints one JSON line: {"model", "threads", "iters", "median_ms"/"min_ms"/"max_ms" (end to end,
// timed with the profiler on), "run_ms" (mean model_run span), "ops": [{"op_type", "nodes",
// "ms", "median_ms"}]} where ms is the op type's kernel time per run (the mean over the timed
// runs, as anvil-run --profile reports it) and median_ms the median over those runs (steadier on
// a noisy machine), largest ms first. --tsv prints "op_type<TAB>nodes<TAB>ms<TAB>median_ms"
// lines instead, under a "# model ..." comment line.
// --trace FILE keeps the Chrome-trace JSON (chrome://tracing, ui.perfetto.dev) there.
'use strict';
const path = require('path');
const fs = require('fs');
const os = require('os');

function loadDeps() {
  const home = process.env.ORT_BENCH_HOME || path.join(os.homedir(), '.cache', 'ort-bench');
  const mod = path.join(home, 'node_modules');
  if (!fs.existsSync(path.join(mod, 'onnxruntime-node')) ||
      !fs.existsSync(path.join(mod, 'onnx-proto'))) {
    throw new Error(`no onnxruntime-node in ${mod}: run ../shared/bench/ort_run.js once`);
  }
  return { ort: require(path.join(mod, 'onnxruntime-node')),
           onnx: require(path.join(mod, 'onnx-proto')).onnx };
}

const { ort, onnx } = loadDeps();
const TP = onnx.TensorProto;
const DT = TP.DataType;
const typeInfo = {
  [DT.FLOAT]: ['float32', Float32Array], [DT.DOUBLE]: ['float64', Float64Array],
  [DT.INT64]: ['int64', BigInt64Array], [DT.INT32]: ['int32', Int32Array],
  [DT.INT8]: ['int8', Int8Array], [DT.UINT8]: ['uint8', Uint8Array],
  [DT.INT16]: ['int16', Int16Array], [DT.UINT16]: ['uint16', Uint16Array],
  [DT.UINT32]: ['uint32', Uint32Array], [DT.UINT64]: ['uint64', BigUint64Array],
  [DT.BOOL]: ['bool', Uint8Array], [DT.FLOAT16]: ['float16', Uint16Array],
};

// As ort_run.js reads a TensorProto (raw_data or the typed fields).
function protoToTensor(buf) {
  const t = TP.decode(buf);
  const [name, Ctor] = typeInfo[t.dataType] || [];
  if (!name) throw new Error(`unsupported TensorProto data type ${t.dataType}`);
  const dims = t.dims.map(Number);
  const n = dims.reduce((a, b) => a * b, 1);
  let data;
  if (t.rawData && t.rawData.length) {
    const aligned = new Uint8Array(t.rawData.length); aligned.set(t.rawData);
    data = new Ctor(aligned.buffer, 0, n);
  } else {
    const src = t.floatData.length ? t.floatData : t.doubleData.length ? t.doubleData
              : t.int64Data.length ? t.int64Data.map(x => BigInt(x.toString()))
              : t.uint64Data.length ? t.uint64Data.map(x => BigInt(x.toString())) : t.int32Data;
    data = Ctor.from(src);
  }
  if (name === 'bool') data = Uint8Array.from(data, x => (x ? 1 : 0));
  return new ort.Tensor(name, data, dims);
}

function rng(seed) { // mulberry32, as ort_run.js (the same --seed gives the same inputs)
  let a = seed >>> 0;
  return () => { a = (a + 0x6D2B79F5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

function randomTensor(meta, dims, next) {
  const elemType = meta.type || 'float32';
  const n = dims.reduce((a, b) => a * b, 1);
  const Ctor = Object.values(typeInfo).find(v => v[0] === elemType)?.[1];
  if (!Ctor) throw new Error(`cannot make a random input of type ${elemType} for ${meta.name}`);
  const data = new Ctor(n);
  for (let i = 0; i < n; i++) {
    const u = next();
    if (elemType === 'float32' || elemType === 'float64') data[i] = u * 2 - 1;
    else if (elemType === 'int64' || elemType === 'uint64') data[i] = BigInt(Math.floor(u * 4));
    else if (elemType === 'bool') data[i] = u < 0.5 ? 0 : 1;
    else data[i] = Math.floor(u * 4);
  }
  return new ort.Tensor(elemType, data, dims);
}

// Kernel time per op type over the timed runs: the node events (name "<node>_kernel_time",
// args.op_name, dur in µs) inside the last `iters` model_run spans.
function summarize(events, iters) {
  const runs = events.filter(e => e.cat === 'Session' && e.name === 'model_run')
    .sort((a, b) => a.ts - b.ts);
  if (runs.length < iters) {
    throw new Error(`trace has ${runs.length} model_run events, expected at least ${iters}`);
  }
  const timed = runs.slice(runs.length - iters);
  const start = timed[0].ts;
  const runOf = ts => {  // index of the timed run whose span holds ts, or -1
    let lo = 0, hi = timed.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (timed[mid].ts <= ts) lo = mid; else hi = mid - 1;
    }
    return ts >= timed[lo].ts && ts <= timed[lo].ts + timed[lo].dur ? lo : -1;
  };
  const byOp = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.ts < start) continue;
    const run = runOf(e.ts);
    if (run < 0) continue;
    const op = String((e.args && e.args.op_name) || e.name.replace(/_kernel_time$/, ''));
    if (!byOp.has(op)) {
      byOp.set(op, { op_type: op, nodes: new Set(), us: 0, perRun: new Float64Array(iters) });
    }
    const p = byOp.get(op);
    p.nodes.add(e.name);
    p.us += e.dur;
    p.perRun[run] += e.dur;
  }
  const ops = [...byOp.values()].map(p => {
    const sorted = Array.from(p.perRun).sort((a, b) => a - b);
    return { op_type: p.op_type, nodes: p.nodes.size, ms: p.us / 1e3 / iters,
             median_ms: sorted[Math.floor(iters / 2)] / 1e3 };
  }).sort((a, b) => b.ms - a.ms);
  const runMs = timed.reduce((s, r) => s + r.dur, 0) / 1e3 / iters;
  return { ops, runMs };
}

async function main() {
  const argv = process.argv.slice(2);
  if (!argv.length || argv[0] === '-h' || argv[0] === '--help') {
    console.log(fs.readFileSync(__filename, 'utf8').split('\n').slice(1, 24).join('\n')); return;
  }
  const opt = { inputs: {}, shapes: {}, seed: 1, iters: 10, warmup: 2, threads: 1, dir: null,
                opt: true, tsv: false, trace: null };
  const model = argv[0];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i], v = () => argv[++i];
    if (a === '--input') { const [k, f] = v().split('='); opt.inputs[k] = f; }
    else if (a === '--input-dir') opt.dir = v();
    else if (a === '--shape') {
      const [k, d] = v().split('='); opt.shapes[k] = d.split(',').map(Number);
    }
    else if (a === '--seed') opt.seed = Number(v());
    else if (a === '--iters') opt.iters = Math.max(1, Number(v()));
    else if (a === '--warmup') opt.warmup = Number(v());
    else if (a === '--threads') opt.threads = Number(v());
    else if (a === '--no-opt') opt.opt = false;
    else if (a === '--tsv') opt.tsv = true;
    else if (a === '--trace') opt.trace = v();
    else throw new Error(`unknown argument ${a}`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ort_profile-'));
  try {
    const session = await ort.InferenceSession.create(model, {
      intraOpNumThreads: opt.threads, interOpNumThreads: 1,
      graphOptimizationLevel: opt.opt ? 'all' : 'disabled',
      enableProfiling: true, profileFilePrefix: path.join(tmp, 'ort') });
    const feeds = {};
    const metas = session.inputMetadata || session.inputNames.map(name => ({ name }));
    const next = rng(opt.seed);
    session.inputNames.forEach((name, k) => {
      const file = opt.inputs[name] || (opt.dir && path.join(opt.dir, `input_${k}.pb`));
      if (file && fs.existsSync(file)) {
        feeds[name] = protoToTensor(fs.readFileSync(file)); return;
      }
      const meta = metas.find(m => m.name === name) || { name };
      const dims = opt.shapes[name] ||
                   (meta.shape || []).map(d => (typeof d === 'number' && d > 0 ? d : 1));
      feeds[name] = randomTensor(meta, dims, next);
    });
    for (let i = 0; i < opt.warmup; i++) await session.run(feeds);
    const times = [];
    for (let i = 0; i < opt.iters; i++) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    session.endProfiling();  // writes <prefix>_<date>.json
    const files = fs.readdirSync(tmp).filter(f => f.endsWith('.json'));
    if (files.length !== 1) {
      throw new Error(`expected one profile file in ${tmp}, found ${files.length}`);
    }
    const traceFile = path.join(tmp, files[0]);
    if (opt.trace) fs.copyFileSync(traceFile, opt.trace);
    const { ops, runMs } = summarize(JSON.parse(fs.readFileSync(traceFile, 'utf8')), opt.iters);
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    if (opt.tsv) {
      console.log(`# model ${path.basename(model)} threads ${opt.threads} iters ${times.length} ` +
                  `median_ms ${median.toFixed(4)} run_ms ${runMs.toFixed(4)}`);
      for (const p of ops) {
        console.log(`${p.op_type}\t${p.nodes}\t${p.ms.toFixed(4)}\t${p.median_ms.toFixed(4)}`);
      }
    } else {
      console.log(JSON.stringify({
        model: path.basename(model), runtime: 'onnxruntime', threads: opt.threads,
        iters: times.length, median_ms: median, min_ms: times[0], max_ms: times[times.length - 1],
        run_ms: runMs, ops }));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
main().catch(e => { console.error(`ort_profile: ${e.message}`); process.exit(1); });
