// SPDX-License-Identifier: MIT
// putload — a closed-loop put client on etcd's own clientv3 (Debian golang-etcd-server-dev, etcd 3.4),
// as etcd's `benchmark put`: N clients, each with one put outstanding, over -conns gRPC connections.
// Prints one JSON line: puts, seconds, writes_per_s, latency p50/p90/p99/max (ms), errors.
// With -record FILE, every acknowledged put is appended as "key<TAB>mod_revision<TAB>value\n" (values are
// printable), written only after etcd answered, so the file lists exactly what etcd acknowledged. SIGINT or
// SIGTERM ends the run early the same way as -duration does (the puts in flight are waited for, the record
// is flushed, the result printed); a SIGKILLed putload loses what its buffer held. -rate paces the puts (a
// steady load, bench/soak.sh). The value of a key is a function of the key alone (value()), so a reader can
// check what it reads back without the record.
//
// -kinds NAME:RATE:KEY_BYTES:VAL_BYTES[,...] sends a mix of put kinds (a Kubernetes control plane's writes,
// bench/k8s_lab.sh: the text `etcd-fio job --load k8s:N` gives the engine as etcd_kinds=): the n-th put of
// the run is of the kind engine/kinds.h's seeded draw picks (-seed, the engine's etcd_seed=), with that
// kind's key and value sizes, and the puts are paced at the mix's total rate unless -rate says otherwise.
// -selftest prints the draw's check values (kinds_mix(0) and the first 64 kinds of the k8s mix at seed 1)
// for bench/k8s_lab.sh to hold against the engine's.
//
// Build offline (bench/capacity.sh does): GO111MODULE=off GOPATH=DIR:/usr/share/gocode go build
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.etcd.io/etcd/clientv3"
)

type result struct {
	Clients    int     `json:"clients"`
	Puts       int64   `json:"puts"`
	Errors     int64   `json:"errors"`
	Seconds    float64 `json:"seconds"`
	WritesPerS float64 `json:"writes_per_s"`
	P50Ms      float64 `json:"p50_ms"`
	P90Ms      float64 `json:"p90_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
	FirstError string  `json:"first_error,omitempty"`
}

// key: the prefix, then a hex number filling size bytes: with -unique a global sequence number (distinct
// per put until it wraps at 16^(size-len(prefix))), else the client's number, so that every put of a client
// goes to one key (as `benchmark put`'s default key space of 1 reuses one key).
func key(prefix string, size int, n uint64) string {
	w := size - len(prefix)
	s := fmt.Sprintf("%0*x", w, n)
	return prefix + s[len(s)-w:]
}

// value: size printable bytes that depend on the key (a soak can check what it reads back).
func value(k string, size int) string {
	b := make([]byte, size)
	h := uint32(2166136261)
	for i := 0; i < len(k); i++ {
		h = (h ^ uint32(k[i])) * 16777619
	}
	for i := range b {
		h ^= h << 13
		h ^= h >> 17
		h ^= h << 5
		b[i] = 'a' + byte(h%26)
	}
	return string(b)
}

func main() {
	endpoints := flag.String("endpoints", "http://127.0.0.1:2379", "etcd client URL(s), comma-separated")
	clients := flag.Int("clients", 1, "closed-loop clients (each one put outstanding)")
	conns := flag.Int("conns", 1, "gRPC connections shared by the clients (etcd benchmark's --conns)")
	keySize := flag.Int("key-size", 8, "key bytes")
	valSize := flag.Int("val-size", 256, "value bytes")
	duration := flag.Duration("duration", 10*time.Second, "measured time")
	warmup := flag.Duration("warmup", time.Second, "time run before measuring (puts not counted)")
	prefix := flag.String("prefix", "", "key prefix")
	unique := flag.Bool("unique", true, "a distinct key per put (false: one key per client)")
	record := flag.String("record", "", "append every acknowledged put to this file (key, revision, value)")
	timeout := flag.Duration("timeout", 10*time.Second, "per-put timeout")
	rate := flag.Float64("rate", 0, "puts per second over all clients, paced (0: closed loop, as fast as etcd answers)")
	kindsText := flag.String("kinds", "", "a mix of put kinds NAME:RATE:KEY_BYTES:VAL_BYTES[,...] (engine/kinds.h); paced at its total rate unless -rate is given")
	seed := flag.Uint64("seed", 1, "the seed of -kinds' draw (the engine's etcd_seed=)")
	selftest := flag.Bool("selftest", false, "print the draw's check values and exit")
	flag.Parse()
	if *selftest {
		ks, total, _ := parseKinds("lease:10:49:512,node:0.333333:34:20000")
		b := make([]byte, 64)
		for n := range b {
			b[n] = byte('0' + kindsPick(ks, total, 1, uint64(n)))
		}
		fmt.Printf("%016x %s\n", kindsMix(0), b)
		return
	}
	var ks []kind
	var ktotal uint64
	if *kindsText != "" {
		var err error
		if ks, ktotal, err = parseKinds(*kindsText); err != nil {
			fmt.Fprintln(os.Stderr, "putload:", err)
			os.Exit(2)
		}
		if *rate == 0 {
			for _, k := range ks {
				*rate += k.rate
			}
		}
		for _, k := range ks {
			if k.keySize < len("/registry/")+len(k.name)+2 {
				fmt.Fprintf(os.Stderr, "putload: -kinds %s: a key of %d bytes cannot hold its prefix\n", k.name, k.keySize)
				os.Exit(2)
			}
		}
	}
	var drawn uint64
	if *clients < 1 || *conns < 1 || *keySize < len(*prefix)+1 || *valSize < 0 {
		fmt.Fprintln(os.Stderr, "putload: need -clients >= 1, -conns >= 1, -key-size > len(prefix), -val-size >= 0")
		os.Exit(2)
	}
	var eps []string
	for _, e := range splitComma(*endpoints) {
		eps = append(eps, e)
	}
	cs := make([]*clientv3.Client, *conns)
	for i := range cs {
		c, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second})
		if err != nil {
			fmt.Fprintln(os.Stderr, "putload:", err)
			os.Exit(2)
		}
		defer c.Close()
		cs[i] = c
	}
	var rec *bufio.Writer
	var recMu sync.Mutex
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "putload:", err)
			os.Exit(2)
		}
		defer f.Close()
		rec = bufio.NewWriterSize(f, 1<<20)
		defer rec.Flush()
	}

	var measuring, stop int32
	var errs int64
	var next uint64
	var firstErr atomic.Value
	lats := make([][]time.Duration, *clients)
	var wg sync.WaitGroup
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			kv := cs[id%len(cs)]
			var gap time.Duration // -rate: each client paces itself at rate/clients
			if *rate > 0 {
				gap = time.Duration(float64(*clients) / *rate * float64(time.Second))
			}
			due := time.Now()
			if gap > 0 { // the clients' puts spread over the gap, not all at once (a steady stream, as etcd's clients send)
				due = due.Add(gap * time.Duration(id) / time.Duration(*clients))
			}
			for atomic.LoadInt32(&stop) == 0 {
				if gap > 0 {
					if w := time.Until(due); w > 0 {
						time.Sleep(w)
					}
					due = due.Add(gap)
					if time.Until(due) < -time.Second { // far behind (a slow etcd): no burst to catch up
						due = time.Now()
					}
				}
				n := uint64(id)
				if *unique {
					n = atomic.AddUint64(&next, 1) - 1
				}
				k := key(*prefix, *keySize, n)
				vsize := *valSize
				if ks != nil { // the next put of the mix: its kind's key (under /registry/NAME/) and value sizes
					kd := ks[kindsPick(ks, ktotal, *seed, atomic.AddUint64(&drawn, 1)-1)]
					k = key("/registry/"+kd.name+"/", kd.keySize, n)
					vsize = kd.valSize
				}
				v := value(k, vsize)
				ctx, cancel := context.WithTimeout(context.Background(), *timeout)
				t0 := time.Now()
				resp, err := kv.Put(ctx, k, v)
				d := time.Since(t0)
				cancel()
				if err != nil {
					atomic.AddInt64(&errs, 1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				if rec != nil {
					recMu.Lock()
					fmt.Fprintf(rec, "%s\t%d\t%s\n", k, resp.Header.Revision, v)
					recMu.Unlock()
				}
				if atomic.LoadInt32(&measuring) == 1 {
					lats[id] = append(lats[id], d)
				}
			}
		}(i)
	}
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM)
	stopped := false
	select {
	case <-time.After(*warmup):
	case <-sigc:
		stopped = true
	}
	atomic.StoreInt32(&measuring, 1)
	t0 := time.Now()
	if !stopped {
		select {
		case <-time.After(*duration):
		case <-sigc:
		}
	}
	atomic.StoreInt32(&measuring, 0)
	secs := time.Since(t0).Seconds()
	atomic.StoreInt32(&stop, 1)
	wg.Wait()

	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	r := result{Clients: *clients, Puts: int64(len(all)), Errors: errs, Seconds: secs}
	if len(all) > 0 {
		r.WritesPerS = float64(len(all)) / secs
		r.P50Ms = ms(quantile(all, 0.50))
		r.P90Ms = ms(quantile(all, 0.90))
		r.P99Ms = ms(quantile(all, 0.99))
		r.MaxMs = ms(all[len(all)-1])
	}
	if e, ok := firstErr.Load().(string); ok {
		r.FirstError = e
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
	if r.Puts == 0 {
		os.Exit(1)
	}
}

// kind: one put kind of -kinds, as engine/kinds.h parses it; weight = the rate in puts per 10^6 s, rounded
// half away from zero as C's llround (Go's math.Round), so both draws use the same integers.
type kind struct {
	name             string
	rate             float64
	weight           uint64
	keySize, valSize int
}

func parseKinds(text string) ([]kind, uint64, error) {
	var ks []kind
	var total uint64
	for _, part := range strings.Split(text, ",") {
		f := strings.Split(part, ":")
		if len(f) != 4 || f[0] == "" {
			return nil, 0, fmt.Errorf("-kinds %q: expected NAME:RATE:KEY_BYTES:VAL_BYTES[,...]", text)
		}
		r, err := strconv.ParseFloat(f[1], 64)
		kb, err2 := strconv.Atoi(f[2])
		vb, err3 := strconv.Atoi(f[3])
		if err != nil || err2 != nil || err3 != nil || !(r > 0) || kb < 1 || vb < 0 {
			return nil, 0, fmt.Errorf("-kinds %q: bad kind %q", text, part)
		}
		w := uint64(math.Round(r * 1e6))
		if w == 0 {
			w = 1
		}
		ks = append(ks, kind{f[0], r, w, kb, vb})
		total += w
	}
	return ks, total, nil
}

// kindsMix: splitmix64's finaliser, as kinds_mix in engine/kinds.h.
func kindsMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// kindsPick: the kind of the n-th put for seed, as kinds_pick in engine/kinds.h.
func kindsPick(ks []kind, total, seed, n uint64) int {
	if len(ks) < 2 {
		return 0
	}
	r := kindsMix(seed^kindsMix(n)) % total
	for i, k := range ks {
		if r < k.weight {
			return i
		}
		r -= k.weight
	}
	return len(ks) - 1
}

// quantile: the sample of rank ceil(q*n) (1-based), the rule libfioreport's fio readers use.
func quantile(s []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(s))+0.999999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}
