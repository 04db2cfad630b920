// The lab's one k6 script. The harness passes the plan (a profile, already checked and
// scaled by the preflight) in LAB_PLAN as JSON, so this file holds no numbers of its own.
//
// Timeline: idle sockets open in equal steps, each step held so memory can settle; then a
// steady /json phase and a /dashboard phase, open-model (constant arrival rate), with every
// socket still open and pinging. The sockets close when the last phase ends.
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';
import { setInterval, setTimeout, clearInterval } from 'k6/timers';
import { WebSocket } from 'k6/websockets';

const plan = JSON.parse(__ENV.LAB_PLAN);
const base = plan.baseUrl;
const wsUrl = base.replace(/^http/, 'ws') + '/ws';

const socketsOpened = new Counter('lab_sockets_opened');
const socketsFailed = new Counter('lab_sockets_failed');

const socketsEndS = plan.socketSteps * plan.stepHoldSeconds;
const jsonEndS = socketsEndS + plan.jsonSeconds;
const endS = jsonEndS + plan.dashboardSeconds;

export const options = {
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(99)', 'p(99.9)'],
  discardResponseBodies: false,
  // Thresholds that always pass: they only make k6 report each endpoint's latency on its own.
  thresholds: {
    'http_req_duration{endpoint:json}': ['max>=0'],
    'http_req_duration{endpoint:dashboard}': ['max>=0'],
    'http_reqs{endpoint:json}': ['count>=0'],
    'http_reqs{endpoint:dashboard}': ['count>=0'],
  },
  scenarios: {
    idle_sockets: {
      executor: 'per-vu-iterations',
      exec: 'idleSockets',
      vus: plan.socketVus,
      iterations: 1,
      maxDuration: `${endS + 60}s`,
    },
    json: openModel('json', plan.jsonRatePerSecond, plan.jsonSeconds, socketsEndS, plan.jsonVus),
  },
};

// A profile may leave the dashboard phase out; k6 refuses a scenario with no rate or time.
if (plan.dashboardRatePerSecond > 0 && plan.dashboardSeconds > 0) {
  options.scenarios.dashboard = openModel('dashboard', plan.dashboardRatePerSecond, plan.dashboardSeconds, jsonEndS, plan.dashboardVus);
}

// Requests arrive at a fixed rate whatever the latency (an open model), so a slow server
// shows as latency and dropped iterations instead of quietly getting fewer requests.
function openModel(exec, ratePerSecond, seconds, startSeconds, vus) {
  return {
    executor: 'constant-arrival-rate',
    exec,
    rate: ratePerSecond,
    timeUnit: '1s',
    duration: `${seconds}s`,
    startTime: `${startSeconds}s`,
    preAllocatedVUs: vus,
    maxVUs: vus * 4,
  };
}

// Each VU holds its share of the sockets; k6/websockets lets one VU hold many.
export function idleSockets() {
  const share = Math.floor(plan.idleSockets / plan.socketVus) + (__VU <= plan.idleSockets % plan.socketVus ? 1 : 0);
  const open = [];
  for (let step = 0; step < plan.socketSteps; step++) {
    const count = Math.floor(share / plan.socketSteps) + (step < share % plan.socketSteps ? 1 : 0);
    // Spread a step's opens over its first seconds so the server sees a ramp, not a burst.
    for (let i = 0; i < count; i++) {
      setTimeout(() => open.push(openSocket()), step * plan.stepHoldSeconds * 1000 + (i * 2000) / Math.max(count, 1));
    }
  }
  setTimeout(() => open.forEach((held) => held.close()), endS * 1000);
}

// A socket and its pinger, closed together so no ping is sent on a closing socket.
function openSocket() {
  const socket = new WebSocket(wsUrl);
  let pinger = null;
  const stopPinging = () => {
    if (pinger !== null) clearInterval(pinger);
    pinger = null;
  };
  socket.onopen = () => {
    socketsOpened.add(1);
    pinger = setInterval(() => {
      if (socket.readyState === 1) socket.ping();
    }, plan.pingIntervalSeconds * 1000);
  };
  socket.onerror = () => {
    socketsFailed.add(1);
    stopPinging();
  };
  socket.onclose = stopPinging;
  return {
    close: () => {
      stopPinging();
      socket.close();
    },
  };
}

export function json() {
  const response = http.get(`${base}/json`, { tags: { endpoint: 'json' } });
  check(response, {
    'json status 200': (r) => r.status === 200,
    'json body': (r) => r.body === '{"message":"Hello, World!"}',
  });
}

export function dashboard() {
  const response = http.get(`${base}/dashboard/user-${__ITER % 1000}`, { tags: { endpoint: 'dashboard' } });
  check(response, { 'dashboard status 200': (r) => r.status === 200 });
}

export function handleSummary(data) {
  return { [__ENV.LAB_SUMMARY]: JSON.stringify(data, null, 2) };
}
