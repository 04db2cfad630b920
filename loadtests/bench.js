// The lab's one k6 script. The harness passes the plan (the checked profile, the idle-socket
// count the preflight allows, and the VUs; see K6Plan) in LAB_PLAN as JSON, so this file
// holds no numbers of its own.
//
// Timeline: idle sockets open in equal steps, each step held so memory can settle; then a
// /json warm-up that ramps up to the rate (so the JIT compiles before anything is measured),
// a steady /json phase, and a /dashboard warm-up and phase, open-model (constant arrival rate), with every
// socket still open and pinging; then, where the profile has one, the latency–throughput curve:
// /json and then /dashboard at rising rates, step by step. The sockets close when the last phase ends.
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { setInterval, setTimeout, clearInterval } from 'k6/timers';
import { WebSocket } from 'k6/websockets';

const plan = JSON.parse(__ENV.LAB_PLAN);
const profile = plan.profile;
const base = plan.baseUrl;
const wsUrl = base.replace(/^http/, 'ws') + '/ws';

const socketsOpened = new Counter('lab_sockets_opened');

// The phases of the load, in order, in seconds since k6 started (the harness's LoadTimeline):
// the socket steps, each endpoint's warm-up and steady phase, then the latency–throughput curve.
const timeline = plan.timeline;
const jsonPhase = timeline.find((p) => p.name === 'json');
const endS = Math.max(...timeline.map((p) => p.toSeconds));

export const options = {
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(99)', 'p(99.9)'],
  discardResponseBodies: false,
  // Thresholds that always pass: they only make k6 report each endpoint's latency on its own.
  thresholds: {
    'dropped_iterations{scenario:json}': ['count>=0'],
    'dropped_iterations{scenario:dashboard}': ['count>=0'],
    'http_req_duration{endpoint:json}': ['max>=0'],
    'http_req_duration{endpoint:dashboard}': ['max>=0'],
    'http_reqs{endpoint:json}': ['count>=0'],
    'http_reqs{endpoint:dashboard}': ['count>=0'],
    // The /dashboard calls that failed (no 200), warm-up included: a stub lost mid-run shows here.
    'http_req_failed{scenario:dashboard}': ['rate>=0'],
  },
  scenarios: {
    idle_sockets: {
      executor: 'per-vu-iterations',
      exec: 'idleSockets',
      vus: plan.socketVus,
      iterations: 1,
      maxDuration: `${endS + 60}s`,
    },
  },
};

// Each endpoint's phases (its warm-up, its steady phase, and its curve's steps) are one
// scenario, open-model (arrivals at the phase's rate whatever the latency), so the VUs (and
// their connections) that served the ramp go on to serve the rest. (As two scenarios, the
// steady phase began on VUs with no connection yet, and ~1,000 of them connecting at once
// stalled k6 for over a second at its start.) In the phases between, the other endpoint's,
// its rate is 0. Each request is tagged with the phase it was sent in (phaseTag), so the
// figures of a phase are its own requests; the harness and the analysis count a phase's
// dropped iterations from their timestamps.
// Each endpoint's own phases, found once: phaseTag reads them on every request.
// The phases k6 offers each endpoint in: not the steady /json phase or the curve's steps a profile gives to another load
// generator (Profile.jsonGenerator, Profile.curveGenerator); k6 sends none of that endpoint's requests during those.
const ownPhases = {
  json: timeline.filter((p) => p.endpoint === 'json' && p.ratePerSecond > 0 && p.generator === 'k6'),
  dashboard: timeline.filter((p) => p.endpoint === 'dashboard' && p.ratePerSecond > 0 && p.generator === 'k6'),
};

function endpointScenario(endpoint, vus) {
  const own = ownPhases[endpoint];
  if (own.length === 0) return null;
  const first = own[0];
  const last = own[own.length - 1];
  const stages = [];
  for (const p of timeline.filter((q) => q.fromSeconds >= first.fromSeconds && q.toSeconds <= last.toSeconds)) {
    const rate = p.endpoint === endpoint && p.generator === 'k6' ? p.ratePerSecond : 0;
    const seconds = `${p.toSeconds - p.fromSeconds}s`;
    // A warm-up ramps to its rate; any other phase moves to its rate at once (a stage of 0 s) and holds it.
    if (rate > 0 && p.ramp) stages.push({ target: rate, duration: seconds });
    else stages.push({ target: rate, duration: '0s' }, { target: rate, duration: seconds });
  }
  return {
    executor: 'ramping-arrival-rate',
    exec: endpoint,
    startRate: first.ramp ? 1 : first.ratePerSecond,
    timeUnit: '1s',
    stages,
    startTime: `${first.fromSeconds}s`,
    // Every VU exists before the run starts; K6Plan says why and how many.
    preAllocatedVUs: vus,
    maxVUs: vus,
  };
}

for (const [endpoint, vus] of [['json', plan.jsonVus], ['dashboard', plan.dashboardVus]]) {
  const scenario = endpointScenario(endpoint, vus);
  if (scenario !== null) options.scenarios[endpoint] = scenario;
}

// The tag of a request: the name of the phase of its endpoint it was sent in. One sent a moment
// after its phase ended (k6 starts iterations on its own schedule) keeps the phase it was due in.
function phaseTag(endpoint) {
  const own = ownPhases[endpoint];
  const at = own[0].fromSeconds + (Date.now() - exec.scenario.startTime) / 1000;
  let tag = own[0].name;
  for (const p of own) if (p.fromSeconds <= at) tag = p.name;
  return tag;
}

// The pinning traps, each in turn, alongside the steady /json phase: a trap blocks for the
// handler core's default 50 ms, longer than a bench's pinning threshold, so each one that pins
// is an event in the run's pinned.csv.
if (profile.pinTrapsPerSecond > 0) {
  options.scenarios.pin_traps = openModel('pinTraps', profile.pinTrapsPerSecond, profile.jsonSeconds, jsonPhase.fromSeconds, plan.pinVus);
  options.thresholds['http_req_duration{endpoint:pin}'] = ['max>=0'];
  options.thresholds['http_reqs{endpoint:pin}'] = ['count>=0'];
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
    // Every VU exists before the run starts; K6Plan says why and how many.
    preAllocatedVUs: vus,
    maxVUs: vus,
  };
}

// Each VU holds its share of the sockets; k6/websockets lets one VU hold many.
// The socket steps: cold, before any load, and where the profile has them, warm, after it (LoadTimeline), with the rest
// between in which the cold sockets close.
const coldSteps = timeline.filter((p) => p.name.startsWith('sockets-step-'));
const warmRest = timeline.find((p) => p.name === 'warm-sockets-rest');
const warmSteps = timeline.filter((p) => p.name.startsWith('warm-sockets-step-'));

export function idleSockets() {
  const share = Math.floor(plan.idleSockets / plan.socketVus) + (__VU <= plan.idleSockets % plan.socketVus ? 1 : 0);
  let opened = 0;
  // This VU's share of the sockets, opened over `steps`: each step's spread over the first half of its hold so the server
  // sees a ramp, not a burst, and the second half shows where memory settles.
  const openIn = (steps) => {
    const held = [];
    for (const [s, p] of steps.entries()) {
      const count = Math.floor(share / steps.length) + (s < share % steps.length ? 1 : 0);
      const holdMs = (p.toSeconds - p.fromSeconds) * 1000;
      for (let i = 0; i < count; i++) {
        const index = __VU - 1 + plan.socketVus * opened++;
        setTimeout(() => held.push(openSocket(index)), p.fromSeconds * 1000 + (i * holdMs) / 2 / Math.max(count, 1));
      }
    }
    return held;
  };
  const closeAll = (held) => held.forEach((socket) => socket.close());
  const cold = openIn(coldSteps);
  if (warmRest === undefined) {
    setTimeout(() => closeAll(cold), endS * 1000);
    return;
  }
  // After the load, each cold socket sends one message, spread over the rest's first quarter, and closes on its echo, so the
  // echo path is compiled as the request paths are; one still open at the rest's half closes then.
  const restMs = (warmRest.toSeconds - warmRest.fromSeconds) * 1000;
  setTimeout(() => {
    cold.forEach((socket, i) => setTimeout(() => socket.echoThenClose(), (i * restMs) / 4 / Math.max(cold.length, 1)));
  }, warmRest.fromSeconds * 1000);
  setTimeout(() => closeAll(cold), warmRest.fromSeconds * 1000 + restMs / 2);
  const warm = openIn(warmSteps);
  setTimeout(() => closeAll(warm), endS * 1000);
}

// A socket and its pinger, closed together so no ping is sent on a closing socket.
//
// Real clients are not in step, so neither are the pings: socket number `index` first pings
// after a fraction of the interval taken from the golden-ratio sequence, which spreads any
// run of consecutive sockets evenly over the interval. (Sockets opened together and pinging
// together would hit the server with thousands of pings at once every interval, a burst no
// real fleet of clients makes, and the /json phase would measure that burst.)
const GOLDEN = 0.6180339887498949;

function openSocket(index) {
  const socket = new WebSocket(wsUrl);
  let pinger = null;
  let firstPing = null;
  const ping = () => {
    if (socket.readyState === 1) socket.ping();
  };
  const stopPinging = () => {
    if (firstPing !== null) clearTimeout(firstPing);
    if (pinger !== null) clearInterval(pinger);
    firstPing = null;
    pinger = null;
  };
  socket.onopen = () => {
    socketsOpened.add(1);
    const intervalMs = profile.pingIntervalSeconds * 1000;
    firstPing = setTimeout(() => {
      firstPing = null;
      ping();
      pinger = setInterval(ping, intervalMs);
    }, ((index * GOLDEN) % 1) * intervalMs);
  };
  socket.onerror = stopPinging;
  socket.onclose = stopPinging;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    stopPinging();
    socket.close();
  };
  return {
    close,
    echoThenClose: () => {
      if (socket.readyState !== 1) return close();
      socket.onmessage = close;
      socket.send('warm');
    },
  };
}

export function json() {
  const response = http.get(`${base}/json`, { tags: { endpoint: phaseTag('json') } });
  check(response, {
    'json status 200': (r) => r.status === 200,
    'json body': (r) => r.body === '{"message":"Hello, World!"}',
  });
}

export function dashboard() {
  const tags = { endpoint: phaseTag('dashboard') };
  const response = http.get(`${base}/dashboard/user-${__ITER % 1000}`, { tags });
  check(response, { 'dashboard status 200': (r) => r.status === 200 });
}

export function pinTraps() {
  const trap = plan.pinTraps[exec.scenario.iterationInTest % plan.pinTraps.length];
  const response = http.get(`${base}/pin/${trap}`, { tags: { endpoint: 'pin', trap } });
  check(response, { 'pin status 200': (r) => r.status === 200 });
}

export function handleSummary(data) {
  return { [__ENV.LAB_SUMMARY]: JSON.stringify(data, null, 2) };
}
