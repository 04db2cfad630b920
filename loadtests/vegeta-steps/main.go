// Command vegeta-steps offers one pass's curve steps with vegeta's own attacker (its library, at the version go.mod pins), every
// step on one pool of keep-alive connections.
//
// The pitfall it removes: one `vegeta attack` process a step opens its connections afresh at each step's start and closes them
// all at its end. Against a server held to 0.4 of a CPU that was a storm in every step: the first answers came late, so vegeta
// dialled a connection for each request due meanwhile, 1,900 at /json 3,000/s (the server's open files went from 15,613 to
// 17,521), the accepts took the server's budget, and the backlog spilled past the step's 2 s of settling into its measured
// seconds (Ktor's p99 on the wire 226 ms at a rate it held in another pass with 2 ms; make curve, 20261128-035558-curve). A
// client's pool keeps its connections; so does this.
//
// It reads one command a line on standard input, and starts each as it comes, so that one step's tail overlaps the next's start
// as the harness times them:
//
//	attack <name> <rate per second> <duration ms> <workers> <targets file> <results csv>
//
// Each attack runs as `vegeta attack -rate=<rate>/1s -duration=<duration>ms -workers=<workers> -max-workers=<workers>` would,
// with the flags below for all, and writes its results as `vegeta encode --to csv` does. When it ends, one line on standard
// output says so: `ended <name> <requests> <requests on a connection it dialled>`. At the end of standard input it waits for
// the attacks under way and exits, 1 if any failed to run.
package main

import (
	"bufio"
	"crypto/tls"
	"flag"
	"fmt"
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
	duration  time.Duration
	workers   uint64
	targets   string
	resultCsv string
}

func parse(line string) (attack, error) {
	f := strings.Fields(line)
	if len(f) != 7 || f[0] != "attack" {
		return attack{}, fmt.Errorf("not `attack <name> <rate> <duration ms> <workers> <targets> <results csv>`: %q", line)
	}
	rate, err1 := strconv.Atoi(f[2])
	ms, err2 := strconv.Atoi(f[3])
	workers, err3 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || rate <= 0 || ms <= 0 || workers == 0 {
		return attack{}, fmt.Errorf("rate, duration and workers must be positive whole numbers: %q", line)
	}
	return attack{f[1], rate, time.Duration(ms) * time.Millisecond, workers, f[5], f[6]}, nil
}

// dials counts, per attack (vegeta names each request's in its X-Vegeta-Attack header), the requests that went on a connection
// dialled for them rather than one the pool held.
type dials struct {
	inner http.RoundTripper
	mu    sync.Mutex
	fresh map[string]*atomic.Int64
}

func (d *dials) counter(name string) *atomic.Int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.fresh[name]
	if !ok {
		c = new(atomic.Int64)
		d.fresh[name] = c
	}
	return c
}

func (d *dials) RoundTrip(req *http.Request) (*http.Response, error) {
	c := d.counter(req.Header.Get("X-Vegeta-Attack"))
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			c.Add(1)
		}
	}}
	return d.inner.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
}

func main() {
	timeout := flag.Duration("timeout", vegeta.DefaultTimeout, "how long a request may take, as vegeta attack -timeout")
	maxBody := flag.Int64("max-body", vegeta.DefaultMaxBody, "the most bytes of an answer's body kept, as vegeta attack -max-body")
	flag.Parse()

	// vegeta attack's own transport, as `-http2=false -keepalive=true` and its defaults make it, shared by every attack.
	dialer := &net.Dialer{KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		MaxIdleConnsPerHost: vegeta.DefaultConnections,
		MaxConnsPerHost:     vegeta.DefaultMaxConnections,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	counted := &dials{inner: transport, fresh: map[string]*atomic.Int64{}}
	client := &http.Client{Transport: counted}

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
			say("ended %s %d %d", a.name, requests, counted.counter(a.name).Load())
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
	for r := range attacker.Attack(vegeta.NewStaticTargeter(targets...), vegeta.Rate{Freq: a.rate, Per: time.Second}, a.duration, a.name) {
		if err := encode.Encode(r); err != nil {
			return requests, err
		}
		requests++
	}
	return requests, buffered.Flush()
}
