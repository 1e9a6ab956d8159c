#!/usr/bin/env node
// ONNX Runtime's constant folding, for the constprop memory benchmark: creates a session with
// basic graph optimizations (which fold constants) and writes the optimized model.
//   ort_fold.js MODEL OUT.onnx
// Uses the ONNX Runtime that ../shared/bench/ort_run.js installs (~/.cache/ort-bench).
'use strict';
const path = require('path');
const os = require('os');

async function main() {
  const [model, out] = process.argv.slice(2);
  const home = process.env.ORT_BENCH_HOME || path.join(os.homedir(), '.cache', 'ort-bench');
  const ort = require(path.join(home, 'node_modules', 'onnxruntime-node'));
  const start = process.hrtime.bigint();
  await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'basic',
    optimizedModelFilePath: out,
    intraOpNumThreads: 1,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(JSON.stringify({ fold_ms: ms }));
}

main().catch((e) => {
  console.error(`ort_fold: ${e.message}`);
  process.exit(1);
});
