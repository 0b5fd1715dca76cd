# ns-2.35 reference run for the "f(k)" experiment of Bansal, Balakrishnan, Floyd and
# Shenker, "Dynamic behavior of slowly-responsive congestion control algorithms"
# (SIGCOMM 2001), Fig. 13: how fast do the surviving flows use bandwidth that is
# suddenly freed?
#
#   ns bench/ns2/slowcc.tcl cc=tfrc intervals=8 discount=0 seed=1   # ONE line of JSON
#
# Topology: N sources -> R1 -> R2 -> N sinks.  Each flow has its own source access link
# (S_i -> R1) and sink access link (R2 -> D_i): access_rate / access_delay, DropTail,
# limit access_buffer.  R1 -> R2 is Queue/RED, limit_ `buffer` packets, every other RED
# parameter at its ns-2.35 default (gentle_ true, thresh_ 0 / maxthresh_ 0 / q_weight_ -1
# i.e. automatic, and also the 2004 byte-mode defaults bytes_ true, queue_in_bytes_ true,
# mean_pktsize_ 500, unless red_bytes=0).  R2 -> R1 (ACKs only) is DropTail.
# Base RTT = 2 * (2 * access_delay + bottleneck_delay) = 50 ms with the defaults.
#
# All N flows use the same congestion control (key cc) and start at times drawn
# uniformly from [0, start_window) with an RNG seeded from `seed` (its next substream).  At stop_at the
# second half of the flows (indices N/2 .. N-1) stop: TCP flows by `$ftp stop` (FTP
# stop = `advance 0` + `close`: no new data; what is outstanding is still delivered),
# TFRC flows by `$agent stop` (sending timer cancelled, active_ 0).
#
# f(k) = (bytes departing the bottleneck queue R1 -> R2 in [stop_at, stop_at + k*rtt])
#        * 8 / (bottleneck_rate * k * rtt),    rtt = base RTT (0.05 s), k = 20, 200.
# Measurement: a QueueMonitor (SnoopQueue/In, /Out, /Drop) on R1 -> R2; its
# bdepartures_ (bytes dequeued, i.e. handed to the link for transmission) is sampled
# by events at stop_at - 100, stop_at, stop_at + 20 rtt and stop_at + 200 rtt.  A
# packet counts when its transmission starts, so each window's byte count is exact up
# to the one packet in transmission at each edge (<= 0.8 ms at 10 Mb/s, i.e. <= 0.08 %
# of a 1 s window).  The sampling events are scheduled before the flows' stop events,
# so at t = stop_at they run first (ns-2 runs same-time events in FIFO order).
#
# Keys (key=value):
#   cc            tcp | tcp_b | tfrc | sqrt                                  [tcp]
#   b             for cc=tcp_b: TCP(1/b), increase_num_ 4(2/b-1/b^2)/3,
#                 decrease_num_ 1-1/b                                        [8]
#   alpha, beta   override increase_num_ / decrease_num_ (tcp, tcp_b, sqrt)  [""]
#   intervals     cc=tfrc: Agent/TFRCSink NumSamples_, the number of loss
#                 intervals averaged (weights are derived from it)          [8]
#   discount      cc=tfrc: Agent/TFRCSink discount_ (history discounting)   [1]
#   tfrc_headers  cc=tfrc: Agent/TFRC useHeaders_ (1 adds headersize_ = 32 B
#                 to every data packet; 0 keeps packets at packetSize_)     [0]
#   red_bytes     1: RED byte mode (ns-2.35 default: bytes_/queue_in_bytes_
#                 true, so limit_ is limit_*mean_pktsize_ = 62500 B);
#                 0: packet mode (limit_ and thresholds in packets)          [1]
#   seed          the default RNG's seed (mix small seeds first: see below)   [1]
#   duration, stop_at, flows, buffer, access_buffer, bottleneck_rate,
#   bottleneck_delay, access_rate, access_delay, packet_size, window,
#   start_window, rtt (the base RTT used for k; default 0.05)
#
# cc=tcp    Agent/TCP/Sack1 + Agent/TCPSink/Sack1, windowOption_ 1, increase_num_ 1,
#           decrease_num_ 0.5, window_ = maxcwnd_ = window, packetSize_ packet_size,
#           useHeaders_ false (packets are packet_size bytes on the wire), ACKs 40 B.
# cc=tcp_b  as tcp with TCP(1/b) parameters.
# cc=sqrt   binomial SQRT: windowOption_ 6, k_parameter_ 0.5, l_parameter_ 0.5
#           (tcp.cc: cwnd += increase_num_/cwnd^(1+k) per ACK;
#           cut to w - (1 - decrease_num_) * w^l), increase_num_ 1, decrease_num_ 0.5.
# cc=tfrc   Agent/TFRC + Agent/TFRCSink, ns-2.35 defaults except packetSize_
#           packet_size, NumSamples_ intervals, discount_ discount, useHeaders_
#           tfrc_headers.  The sender is started with `$agent start` (SndrType_ 0:
#           always has data).
# (ns-2.35 sources: tcp/tfrc-sink.cc binds NumSamples_ -> numsamples and discount_ ->
# discount; tfrc-sink.h DEFAULT_NUMSAMPLES 8 is used when NumSamples_ < 0;
# init_WALI() builds the weights from numsamples.  tcp/tfrc.cc: useHeaders_ adds
# headersize_ to each data packet's size.)

# ---------------------------------------------------------------- parameters
array set P {
    cc tcp
    b 8
    alpha ""
    beta ""
    intervals 8
    discount 1
    tfrc_headers 0
    red_bytes 1
    seed 1
    duration 510
    stop_at 500
    flows 10
    buffer 125
    access_buffer 1000
    bottleneck_rate 10Mb
    bottleneck_delay 15ms
    access_rate 100Mb
    access_delay 5ms
    packet_size 1000
    window 10000
    start_window 5.0
    rtt 0.05
}
source [file join [file dirname [info script]] common.tcl]
parse_keys $argv
set N $P(flows)
set cc $P(cc)
if {[lsearch -exact {tcp tcp_b tfrc sqrt} $cc] < 0} {
    puts stderr "cc must be tcp, tcp_b, tfrc or sqrt"
    exit 2
}

# ---------------------------------------------------------------- simulator
set ns [new Simulator]
# The default RNG drives RED's drop decisions (and TCP boot_time_).  `seed` should be a
# large, well-mixed number (slowcc_ns2.py passes cclab.ns2.translate.ns2_seed(k)): ns-2's
# `seed N` sets all six MRG32k3a components to N, and small N give nearly the same
# early draws.
ns-random $P(seed)
$defaultRNG seed $P(seed)
# A separate RNG for the flow start times: the same seed, then the next substream
# (2^76 draws on), so it is independent of the default RNG's stream.
set startRng [new RNG]
$startRng seed $P(seed)
$startRng next-substream

# ---------------------------------------------------------------- agents' defaults
set alpha 1.0
set beta 0.5
if {$cc eq "tcp_b"} {
    set bb [expr {double($P(b))}]
    set alpha [expr {4.0 * (2.0 / $bb - 1.0 / ($bb * $bb)) / 3.0}]
    set beta [expr {1.0 - 1.0 / $bb}]
}
if {$P(alpha) ne ""} { set alpha $P(alpha) }
if {$P(beta) ne ""} { set beta $P(beta) }

if {$cc eq "tfrc"} {
    Agent/TFRC set packetSize_ $P(packet_size)
    Agent/TFRC set useHeaders_ [expr {$P(tfrc_headers) ? "true" : "false"}]
    Agent/TFRCSink set NumSamples_ $P(intervals)
    Agent/TFRCSink set discount_ $P(discount)
} else {
    Agent/TCP set packetSize_ $P(packet_size)
    Agent/TCP set useHeaders_ false
    Agent/TCP set window_ $P(window)
    Agent/TCP set maxcwnd_ $P(window)
    Agent/TCP set increase_num_ $alpha
    Agent/TCP set decrease_num_ $beta
    if {$cc eq "sqrt"} {
        Agent/TCP set windowOption_ 6
        Agent/TCP set k_parameter_ 0.5
        Agent/TCP set l_parameter_ 0.5
    } else {
        Agent/TCP set windowOption_ 1
    }
}

if {!$P(red_bytes)} {
    Queue/RED set bytes_ false
    Queue/RED set queue_in_bytes_ false
}

# ---------------------------------------------------------------- topology
set r1 [$ns node]
set r2 [$ns node]
$ns simplex-link $r1 $r2 $P(bottleneck_rate) $P(bottleneck_delay) RED
$ns simplex-link $r2 $r1 $P(bottleneck_rate) $P(bottleneck_delay) DropTail
$ns queue-limit $r1 $r2 $P(buffer)
$ns queue-limit $r2 $r1 $P(buffer)
set redq [[$ns link $r1 $r2] queue]

for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 $P(access_rate) $P(access_delay) DropTail
    $ns queue-limit $s($i) $r1 $P(access_buffer)
    $ns queue-limit $r1 $s($i) $P(access_buffer)
    $ns duplex-link $r2 $d($i) $P(access_rate) $P(access_delay) DropTail
    $ns queue-limit $r2 $d($i) $P(access_buffer)
    $ns queue-limit $d($i) $r2 $P(access_buffer)
}

# Counters only: no trace file.
set qm [new QueueMonitor]
[$ns link $r1 $r2] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] \
    [new SnoopQueue/Drop] $qm

# ---------------------------------------------------------------- samples
# Scheduled before any flow event so that same-time samples run first.
set T0 [expr {double($P(stop_at))}]
set T20 [expr {$T0 + 20 * $P(rtt)}]
set T200 [expr {$T0 + 200 * $P(rtt)}]
set TM100 [expr {$T0 - 100.0}]
array set bdep {}
array set sentAt {}
proc sample {tag} {
    global qm bdep sentAt agent N
    set bdep($tag) [$qm set bdepartures_]
    set tot 0
    for {set i [expr {$N / 2}]} {$i < $N} {incr i} {
        incr tot [$agent($i) set ndatapack_]
    }
    set sentAt($tag) $tot
}
foreach {tag t} [list m100 $TM100 t0 $T0 t20 $T20 t200 $T200] {
    if {$t <= $P(duration)} { $ns at $t "sample $tag" }
}

# ---------------------------------------------------------------- flows
set starts {}
for {set i 0} {$i < $N} {incr i} {
    set st [$startRng uniform 0 $P(start_window)]
    lappend starts [format %.6f $st]
    if {$cc eq "tfrc"} {
        set agent($i) [new Agent/TFRC]
        set sink($i) [new Agent/TFRCSink]
    } else {
        set agent($i) [new Agent/TCP/Sack1]
        set sink($i) [new Agent/TCPSink/Sack1]
    }
    $agent($i) set fid_ $i
    $ns attach-agent $s($i) $agent($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $agent($i) $sink($i)
    if {$cc eq "tfrc"} {
        $ns at $st "$agent($i) start"
        if {$i >= $N / 2} { $ns at $T0 "$agent($i) stop" }
    } else {
        set ftp($i) [new Application/FTP]
        $ftp($i) attach-agent $agent($i)
        $ns at $st "$ftp($i) start"
        if {$i >= $N / 2} { $ns at $T0 "$ftp($i) stop" }
    }
}

# ---------------------------------------------------------------- results

proc util {a b dt} {
    # bytes departed between two samples -> fraction of the bottleneck rate
    global bdep rate_bps
    if {![info exists bdep($a)] || ![info exists bdep($b)]} { return null }
    return [jnum [expr {($bdep($b) - $bdep($a)) * 8.0 / ($rate_bps * $dt)}]]
}

proc finish {} {
    global ns P N qm redq bdep sentAt starts cc alpha beta agent rate_bps
    set rate_bps [[[$ns link $::r1 $::r2] link] set bandwidth_]
    set k20 [expr {20 * $P(rtt)}]
    set k200 [expr {200 * $P(rtt)}]
    set params {}
    foreach k [lsort [array names P]] {
        lappend params "\"$k\":\"$P($k)\""
    }
    lappend params "\"increase_num\":\"$alpha\"" "\"decrease_num\":\"$beta\""
    set out "\{\"simulator\":\"ns-2.35\",\"cc\":\"$cc\",\"seed\":$P(seed)"
    append out ",\"f20\":[util t0 t20 $k20],\"f200\":[util t0 t200 $k200]"
    append out ",\"util_before_stop\":[util m100 t0 100.0]"
    append out ",\"bottleneck_departures\":[$qm set pdepartures_]"
    append out ",\"bottleneck_departed_bytes\":[$qm set bdepartures_]"
    append out ",\"bottleneck_drops\":[$qm set pdrops_]"
    append out ",\"bottleneck_marks\":[$qm set pmarks_]"
    append out ",\"bottleneck_arrivals\":[$qm set parrivals_]"
    set bd {}
    foreach tag {m100 t0 t20 t200} {
        if {[info exists bdep($tag)]} { lappend bd "\"$tag\":$bdep($tag)" }
    }
    append out ",\"bdepartures_samples\":\{[join $bd ,]\}"
    # data packets the stopped flows sent after stop_at (TCP: outstanding data and
    # its retransmissions only; TFRC: should be 0)
    if {[info exists sentAt(t0)]} {
        set tot 0
        for {set i [expr {$N / 2}]} {$i < $N} {incr i} {
            incr tot [$agent($i) set ndatapack_]
        }
        append out ",\"stopped_flows_pkts_after_stop\":[expr {$tot - $sentAt(t0)}]"
    }
    append out ",\"red_thresh\":[jnum [$redq set thresh_]]"
    append out ",\"red_maxthresh\":[jnum [$redq set maxthresh_]]"
    append out ",\"red_q_weight\":[format %.8f [$redq set q_weight_]]"
    append out ",\"red_queue_in_bytes\":\"[$redq set queue_in_bytes_]\""
    append out ",\"start_times\":\[[join $starts ,]\]"
    append out ",\"params\":\{[join $params ,]\}\}"
    puts $out
    flush stdout
    exit 0
}

$ns at $P(duration) finish
$ns run
