#!/usr/bin/env node
// Greedy generation with ONNX Runtime 1.30 (onnxruntime-node, CPU) on a decoder LLM as ONNX
// Runtime's model builder writes it (input_ids, attention_mask, past_key_values.{i}.key/.value ->
// logits, present.{i}.key/.value): the reference `anvil-run --generate` is measured against.
//
//   ort_generate.js MODEL [--prompt-len P] [--generate N] [--threads T] [--seed S]
//                   [--rounds R] [--mode shared|grow]
//
// The prompt is P tokens, token i = (S * 1000003 + i * 7919) mod vocab (anvil-run's rule). The
// prompt runs once (time to first token), then N - 1 decode steps each feed the last token back.
// --mode shared (default) binds one cache of P + N positions as both past and present of every
// layer, as onnxruntime-genai does on CPU (past_present_share_buffer); grow feeds each step's
// present back as the next past. Prints one JSON line: the tokens, time to first token and
// decode tokens/s (the best of R rounds, and their medians).
'use strict';
const path = require('path');
const fs = require('fs');
const os = require('os');

function loadDeps() {
  // The same packages as ../shared/bench/ort_run.js (which installs them on first use).
  const home = process.env.ORT_BENCH_HOME || path.join(os.homedir(), '.cache', 'ort-bench');
  const mod = path.join(home, 'node_modules');
  if (!fs.existsSync(path.join(mod, 'onnxruntime-node'))) {
    throw new Error(`onnxruntime-node is not installed under ${home}: run ../shared/bench/ort_run.js once`);
  }
  return { ort: require(path.join(mod, 'onnxruntime-node')), onnx: require(path.join(mod, 'onnx-proto')).onnx };
}

function parseArgs(argv) {
  const opt = { promptLen: 16, generate: 16, threads: 1, seed: 1, rounds: 1, mode: 'shared' };
  if (!argv.length || argv[0] === '--help') {
    process.stdout.write(fs.readFileSync(__filename, 'utf8').split('\n').slice(1, 15).map(l => l.slice(3)).join('\n') + '\n');
    process.exit(argv.length ? 0 : 2);
  }
  opt.model = argv[0];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    const v = () => { if (i + 1 >= argv.length) throw new Error(`${a} needs a value`); return argv[++i]; };
    if (a === '--prompt-len') opt.promptLen = Number(v());
    else if (a === '--generate') opt.generate = Number(v());
    else if (a === '--threads') opt.threads = Number(v());
    else if (a === '--seed') opt.seed = Number(v());
    else if (a === '--rounds') opt.rounds = Number(v());
    else if (a === '--mode') opt.mode = v();
    else throw new Error(`unknown option ${a}`);
  }
  if (!(opt.promptLen >= 1 && opt.generate >= 1 && opt.rounds >= 1)) throw new Error('bad counts');
  if (opt.mode !== 'shared' && opt.mode !== 'grow') throw new Error('--mode is shared or grow');
  return opt;
}

// The cache layout [batch, kv_heads, past, head] and the vocabulary, from the graph's declared dims.
function modelDims(onnx, file) {
  const model = onnx.ModelProto.decode(fs.readFileSync(file));
  const dims = v => v.type.tensorType.shape.dim.map(d => (d.dimParam ? d.dimParam : Number(d.dimValue)));
  const pasts = model.graph.input.filter(v => v.name.startsWith('past_key_values.'));
  if (!pasts.length) throw new Error('no past_key_values.* inputs');
  const kv = dims(pasts[0]);
  const logits = model.graph.output.find(v => v.name === 'logits');
  if (!logits) throw new Error('no logits output');
  return { pasts: pasts.map(v => v.name), kvHeads: kv[1], head: kv[3], vocab: dims(logits)[2] };
}

function argmaxLast(logits, vocab) {
  const data = logits.data;
  const base = data.length - vocab;
  let best = 0;
  for (let j = 1; j < vocab; j++) if (data[base + j] > data[base + best]) best = j;
  return best;
}

async function generateOnce(ort, session, d, opt) {
  const prompt = Array.from({ length: opt.promptLen }, (_, i) => (opt.seed * 1000003 + i * 7919) % d.vocab);
  const capacity = opt.promptLen + opt.generate;
  const caches = {};
  for (const name of d.pasts) {
    const len = opt.mode === 'shared' ? capacity : 0;
    caches[name] = new ort.Tensor('float32', new Float32Array(d.kvHeads * len * d.head), [1, d.kvHeads, len, d.head]);
  }
  const tokens = [];
  const times = [];
  let ids = prompt;
  let total = 0;
  for (let step = 0; step < opt.generate; step++) {
    total += ids.length;
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
    };
    Object.assign(feeds, caches);
    const fetches = { logits: null };
    for (const name of d.pasts) {
      fetches[name.replace('past_key_values.', 'present.')] = opt.mode === 'shared' ? caches[name] : null;
    }
    const start = process.hrtime.bigint();
    const out = await session.run(feeds, fetches);
    const token = argmaxLast(out.logits, d.vocab);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    tokens.push(token);
    if (opt.mode === 'grow') {
      for (const name of d.pasts) caches[name] = out[name.replace('past_key_values.', 'present.')];
    }
    ids = [token];
  }
  return { tokens, ttft: times[0], decode: times.slice(1) };
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const { ort, onnx } = loadDeps();
  const d = modelDims(onnx, opt.model);
  const loadStart = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(opt.model, {
    intraOpNumThreads: opt.threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6;
  const rounds = [];
  for (let r = 0; r < opt.rounds; r++) rounds.push(await generateOnce(ort, session, d, opt));
  const median = xs => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const tps = rs => rs.decode.length ? rs.decode.length / (rs.decode.reduce((a, b) => a + b, 0) / 1000) : 0;
  const result = {
    engine: 'onnxruntime', mode: opt.mode, threads: opt.threads, prompt_len: opt.promptLen,
    generated: opt.generate, load_ms: +loadMs.toFixed(1),
    ttft_ms: +Math.min(...rounds.map(r => r.ttft)).toFixed(3),
    ttft_median_ms: +median(rounds.map(r => r.ttft)).toFixed(3),
    decode_tokens_per_s: +Math.max(...rounds.map(tps)).toFixed(2),
    decode_median_tokens_per_s: +median(rounds.map(tps)).toFixed(2),
    rss_mb: +(process.memoryUsage().rss / 1048576).toFixed(1),
    tokens: rounds[0].tokens,
  };
  const same = rounds.every(r => r.tokens.join() === rounds[0].tokens.join());
  if (!same) result.warning = 'rounds generated different tokens';
  console.log(JSON.stringify(result));
}

main().catch(e => { console.error(`ort_generate: error: ${e.message}`); process.exit(1); });
