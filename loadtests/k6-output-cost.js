// What k6's own outputs cost the latency it reports: /json alone at a constant rate, tagged as
// bench.js tags it, with the same summary figures; K6OutputCostIT runs it with the lab's outputs
// (K6Samples, K6Dashboard) and without any, interleaved, and compares k6's p99.
import http from 'k6/http';

export const options = {
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(99)', 'p(99.9)'],
  thresholds: { 'http_req_duration{endpoint:json}': ['max>=0'], 'dropped_iterations': ['count>=0'] },
  scenarios: {
    json: {
      executor: 'constant-arrival-rate',
      exec: 'json',
      rate: Number(__ENV.LAB_RATE),
      timeUnit: '1s',
      duration: `${__ENV.LAB_SECONDS}s`,
      preAllocatedVUs: Number(__ENV.LAB_VUS),
      maxVUs: Number(__ENV.LAB_VUS),
    },
  },
};

export function json() {
  http.get(`${__ENV.LAB_BASE}/json`, { tags: { endpoint: 'json' } });
}

export function handleSummary(data) {
  return { [__ENV.LAB_SUMMARY]: JSON.stringify(data) };
}
