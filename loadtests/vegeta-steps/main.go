// Command vegeta-steps offers one pass's curve steps with vegeta's own attacker (its library, at the version go.mod pins), every
// step on one fixed pool of keep-alive connections, all of them opened before the first step.
//
// Why a fixed pool. One `vegeta attack` process a step opened its connections afresh at each step's start and closed them at its
// end. Against a server held to 0.4 of a CPU that was a storm in every step: the first answers came late, so vegeta dialled a
// connection for each request due meanwhile, 1,900 at /json 3,000/s (the server's open files went from 15,613 to 17,521), the
// accepts took the server's budget, and the backlog spilled past the step's 2 s of settling into its measured seconds. One pool
// a pass with vegeta's own bounds (10,000 connections) removed the storm at each step's start, but a stall inside a step still
// dialled connections, the pool kept them, and one pass reached the server's open-files limit. And how many connections carry
// the load moves what a budgeted server answers (loadtests/probes/connections-under-budget.sh). The runs: docs/JOURNAL.md, "The
// curve's connections: a storm at each step's start, one pool a pass tried, and a fixed pool". So the pool here holds exactly
// -connections, opened at the start, the same for every step and server: a request finds a connection free or waits for one,
// as in a client's bounded pool, and that wait is in its latency. The lab gives an attack no more workers than connections
// (lab.bench.load.VegetaCurve.workersFor), so that none waits on a server past its capacity and times out there.
//
// It opens the pool first: -connections requests to -warm at once, each holding the connection it got until all have one, so
// each is a connection of its own; then one line, `pool <connections opened>`. Then it reads one command a line on standard
// input, and starts each as it comes, as the harness times them:
//
//	attack <name> <rate per second> <length ms> <workers> <targets file> <results csv>
//
// Each attack runs as `vegeta attack -rate=<rate>/1s -duration=<length>ms -workers=<workers> -max-workers=<workers>` would,
// with the flags below for all, but sends exactly the requests its schedule has due within its length (rate × length), then
// ends: vegeta alone stops at its duration a few requests short (79,992 of 80,000 in 10 s at 8,000/s), and those count as
// dropped. An attack that fell behind its schedule (every worker busy) gives up behindMax past its length. Each writes its
// results as `vegeta encode --to csv` does. When it ends, one line says so:
// `ended <name> <requests> <connections dialled since the pool opened>`; one is dialled only in place of one of the pool's that
// closed: the server closed it, or a request on it timed out, which ends its connection. At the end of standard input it waits
// for the attacks under way and exits, 1 if any failed to run.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// attack is one command: a step's name, rate, length, workers, targets and where its results go.
type attack struct {
	name      string
	rate      int
	length    time.Duration
	workers   uint64
	targets   string
	resultCsv string
}

func parse(line string) (attack, error) {
	f := strings.Fields(line)
	if len(f) != 7 || f[0] != "attack" {
		return attack{}, fmt.Errorf("not `attack <name> <rate> <length ms> <workers> <targets> <results csv>`: %q", line)
	}
	rate, err1 := strconv.Atoi(f[2])
	ms, err2 := strconv.Atoi(f[3])
	workers, err3 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || rate <= 0 || ms <= 0 || workers == 0 {
		return attack{}, fmt.Errorf("rate, length and workers must be positive whole numbers: %q", line)
	}
	return attack{f[1], rate, time.Duration(ms) * time.Millisecond, workers, f[5], f[6]}, nil
}

// behindMax is how far past its length an attack that fell behind its schedule goes on sending. The next step's attack starts
// at this one's length, and the two overlap for as long as this one goes on: at 250 ms, what every attack went on for,
// the server met the sum of two steps' rates, and near its limit the backlog spilled into the step's measured seconds
// (docs/JOURNAL.md, "Two steps' rates at once: the attacks' 250 ms overlap").
const behindMax = 250 * time.Millisecond

// schedule is vegeta's constant pacer that stops once the requests due within the attack's length are all sent.
type schedule struct {
	vegeta.ConstantPacer
	due uint64
}

func (s schedule) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if hits >= s.due {
		return 0, true
	}
	return s.ConstantPacer.Pace(elapsed, hits)
}

// poolDeadline bounds opening the pool. It opens as the pass's load starts, while k6 opens the idle sockets, whose accepts the
// server takes in turn with the pool's.
const poolDeadline = 15 * time.Second

// dialCounter counts the connections its dialer opened.
type dialCounter struct {
	dialer *net.Dialer
	opened atomic.Int64
}

func (d *dialCounter) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	conn, err := d.dialer.DialContext(ctx, network, address)
	if err == nil {
		d.opened.Add(1)
	}
	return conn, err
}

// openPool sends n requests to url at once, each holding the connection it got (httptrace's GotConn runs before the request is
// written) until all n hold one: no connection goes back to the pool before every request has its own, so the transport dials n.
// All within the deadline, which also ends a wait for a connection that was not dialled. Returns how many it dialled.
func openPool(client *http.Client, counter *dialCounter, url string, n int, deadline time.Duration) int {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var holding sync.WaitGroup
	holding.Add(n)
	all := make(chan struct{})
	go func() { holding.Wait(); close(all) }()
	var done sync.WaitGroup
	for i := 0; i < n; i++ {
		done.Add(1)
		go func() {
			defer done.Done()
			var once sync.Once
			got := func() { once.Do(holding.Done) }
			defer got() // a request that got no connection does not hold up the others
			trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
				got()
				select {
				case <-all:
				case <-ctx.Done():
				}
			}}
			req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, url, nil)
			if err != nil {
				return
			}
			if res, err := client.Do(req); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}()
	}
	done.Wait()
	return int(counter.opened.Load())
}

func main() {
	timeout := flag.Duration("timeout", vegeta.DefaultTimeout, "how long a request may take, as vegeta attack -timeout")
	maxBody := flag.Int64("max-body", vegeta.DefaultMaxBody, "the most bytes of an answer's body kept, as vegeta attack -max-body")
	connections := flag.Int("connections", 0, "how many keep-alive connections the pool holds, all opened at the start")
	warm := flag.String("warm", "", "the URL the pool's connections are opened with, one request each")
	flag.Parse()
	if *connections <= 0 || *warm == "" {
		fmt.Fprintln(os.Stderr, "vegeta-steps: give -connections (a positive count) and -warm (a URL to open them with)")
		os.Exit(2)
	}

	// vegeta attack's own transport, as `-http2=false -keepalive=true` makes it, but bounded to the pool: no more connections than
	// -connections, every one of them kept idle between requests, and none closed for idling.
	counter := &dialCounter{dialer: &net.Dialer{KeepAlive: 30 * time.Second}}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         counter.DialContext,
		MaxConnsPerHost:     *connections,
		MaxIdleConns:        *connections,
		MaxIdleConnsPerHost: *connections,
		IdleConnTimeout:     0,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	client := &http.Client{Transport: transport}
	pool := openPool(client, counter, *warm, *connections, poolDeadline)
	fmt.Printf("pool %d\n", pool)

	var out sync.Mutex
	var running sync.WaitGroup
	var failed atomic.Bool
	say := func(format string, args ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Printf(format+"\n", args...)
	}

	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		a, err := parse(lines.Text())
		if err != nil {
			fmt.Fprintln(os.Stderr, "vegeta-steps:", err)
			failed.Store(true)
			continue
		}
		running.Add(1)
		go func() {
			defer running.Done()
			requests, err := run(a, client, *timeout, *maxBody)
			if err != nil {
				fmt.Fprintf(os.Stderr, "vegeta-steps: %s: %v\n", a.name, err)
				failed.Store(true)
				return
			}
			say("ended %s %d %d", a.name, requests, counter.opened.Load()-int64(pool))
		}()
	}
	running.Wait()
	if failed.Load() {
		os.Exit(1)
	}
}

// run makes a's attacker on the shared client, as `vegeta attack` makes its own, and writes its results as CSV.
func run(a attack, client *http.Client, timeout time.Duration, maxBody int64) (int, error) {
	file, err := os.Open(a.targets)
	if err != nil {
		return 0, err
	}
	targets, err := vegeta.ReadAllTargets(vegeta.NewHTTPTargeter(file, nil, http.Header{}))
	file.Close()
	if err != nil {
		return 0, err
	}
	results, err := os.Create(a.resultCsv)
	if err != nil {
		return 0, err
	}
	defer results.Close()
	buffered := bufio.NewWriter(results)
	encode := vegeta.NewCSVEncoder(buffered)

	attacker := vegeta.NewAttacker(
		vegeta.Client(client),
		vegeta.Timeout(timeout),
		vegeta.Redirects(vegeta.DefaultRedirects),
		vegeta.MaxBody(maxBody),
		vegeta.Workers(a.workers),
		vegeta.MaxWorkers(a.workers),
	)
	requests := 0
	pacer := schedule{vegeta.Rate{Freq: a.rate, Per: time.Second}, uint64(a.rate) * uint64(a.length.Milliseconds()) / 1000}
	for r := range attacker.Attack(vegeta.NewStaticTargeter(targets...), pacer, a.length+behindMax, a.name) {
		if err := encode.Encode(r); err != nil {
			return requests, err
		}
		requests++
	}
	return requests, buffered.Flush()
}
