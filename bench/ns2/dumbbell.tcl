# ns-2.35 dumbbell reference scenario for cclab (run with /usr/bin/ns).
#
#   ns bench/ns2/dumbbell.tcl [key=value ...]
#
# Topology: N sources -> R1 (source access links), R1 -> R2 (bottleneck),
# R2 -> N sinks (sink access links).  Duplex links, DropTail everywhere.
# Prints exactly one line of JSON on stdout at t = duration and exits.
# See bench/ns2/README.md and docs/ns2-defaults.md.

# ---------------------------------------------------------------- parameters
array set P {
    flows 100
    duration 100
    seed 1
    bottleneck_rate 100Mb
    bottleneck_delay 25ms
    access_rate 100Mb
    source_rate ""
    sink_rate ""
    source_delay 5ms
    sink_delay 5ms
    buffer 875
    access_buffer ""
    packet_size 1000
    alpha 1.0
    beta 0.5
    stagger 1.0
    window 100000
    sink_loss 0
    loss_where head
    delack 0
    recovery sack
    linux_ca ""
    qmon 1
    trace_cwnd 0
}
source [file join [file dirname [info script]] common.tcl]
parse_keys $argv
if {$P(source_rate) eq ""} { set P(source_rate) $P(access_rate) }
if {$P(sink_rate) eq ""} { set P(sink_rate) $P(access_rate) }
if {$P(access_buffer) eq ""} { set P(access_buffer) $P(buffer) }
set N $P(flows)

# ---------------------------------------------------------------- simulator
set ns [new Simulator]
# Seed both the legacy RNG and the default RNG (boot_time_ of every TCP
# agent and the ErrorModel's Uniform ranvar draw from it).
ns-random $P(seed)
$defaultRNG seed $P(seed)

switch -- $P(recovery) {
    sack {
        set tcpClass Agent/TCP/Sack1
        if {$P(delack)} { set sinkClass Agent/TCPSink/Sack1/DelAck } \
        else { set sinkClass Agent/TCPSink/Sack1 }
    }
    newreno {
        set tcpClass Agent/TCP/Newreno
        if {$P(delack)} { set sinkClass Agent/TCPSink/DelAck } \
        else { set sinkClass Agent/TCPSink }
    }
    linux {
        # ns-2's Linux TCP (an older copy of the Linux stack with ns-2's own glue),
        # SACK and timestamps, the congestion control module named by linux_ca.
        set tcpClass Agent/TCP/Linux
        set sinkClass Agent/TCPSink/Sack1
        Agent/TCP/Linux set timestamps_ true
        Agent/TCPSink/Sack1 set ts_echo_rfc1323_ true
    }
    default {
        puts stderr "recovery must be sack, newreno or linux"
        exit 2
    }
}

# Only these TCP defaults are changed; everything else stays at the
# ns-2.35 compiled-in defaults (windowInit_ 2, syn_, delay_growth_,
# tcpTick_ 0.01, minrto_ 0.2, useHeaders_ true, ...).
Agent/TCP set packetSize_ $P(packet_size)
Agent/TCP set window_ $P(window)
Agent/TCP set maxcwnd_ $P(window)
Agent/TCP set windowOption_ 1
Agent/TCP set increase_num_ $P(alpha)
Agent/TCP set decrease_num_ $P(beta)

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 $P(bottleneck_rate) $P(bottleneck_delay) DropTail
$ns queue-limit $r1 $r2 $P(buffer)
$ns queue-limit $r2 $r1 $P(buffer)

set nullAgent [new Agent/Null]
for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 $P(source_rate) $P(source_delay) DropTail
    $ns queue-limit $s($i) $r1 $P(access_buffer)
    $ns queue-limit $r1 $s($i) $P(access_buffer)
    $ns duplex-link $r2 $d($i) $P(sink_rate) $P(sink_delay) DropTail
    $ns queue-limit $r2 $d($i) $P(access_buffer)
    $ns queue-limit $d($i) $r2 $P(access_buffer)
    if {$P(sink_loss) > 0} {
        set em [new ErrorModel]
        $em unit pkt
        $em set rate_ $P(sink_loss)
        $em ranvar [new RandomVariable/Uniform]
        if {$P(loss_where) eq "link"} {
            # after the R2->sink link's queue + transmission + propagation
            $ns link-lossmodel $em $r2 $d($i)
        } else {
            # standard idiom: at the head of the R2->sink link, before its queue
            $ns lossmodel $em $r2 $d($i)
        }
        $em drop-target $nullAgent
    }
}

if {$P(qmon)} {
    # Counters only: no trace file, no integrators, no periodic sampling.
    set qm [new QueueMonitor]
    [$ns link $r1 $r2] attach-monitors [new SnoopQueue/In] \
        [new SnoopQueue/Out] [new SnoopQueue/Drop] $qm
}
if {$P(qmon) >= 2} {
    # also count drops in the source access queues (S_i -> R1); with
    # access_rate == bottleneck_rate the data queue builds there, not at R1.
    for {set i 0} {$i < $N} {incr i} {
        set aqm($i) [new QueueMonitor]
        [$ns link $s($i) $r1] attach-monitors [new SnoopQueue/In] \
            [new SnoopQueue/Out] [new SnoopQueue/Drop] $aqm($i)
    }
}

for {set i 0} {$i < $N} {incr i} {
    set tcp($i) [new $tcpClass]
    $tcp($i) set fid_ $i
    set sink($i) [new $sinkClass]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    if {$P(recovery) eq "linux" && $P(linux_ca) ne ""} {
        $ns at 0 "$tcp($i) select_ca $P(linux_ca)"
    }
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {double($i) * $P(stagger) / $N}] "$ftp($i) start"
}

# ---------------------------------------------------------------- cwnd trace
set cwndTrace {}
proc sample_cwnd {} {
    global ns tcp cwndTrace
    set now [$ns now]
    lappend cwndTrace [format {[%.2f,%.4f]} $now [$tcp(0) set cwnd_]]
    $ns at [expr {$now + 0.01}] sample_cwnd
}
if {$P(trace_cwnd)} { $ns at 0.0 sample_cwnd }

# ---------------------------------------------------------------- results

proc finish {} {
    global ns P N tcp sink qm aqm cwndTrace
    set hdr [Agent/TCP set tcpip_base_hdr_size_]
    # sink bytes_ = in-order bytes handed to the application, counted with
    # the headers: one 40-byte SYN (seqno 0) + k data packets of
    # packet_size + 40 bytes (useHeaders_ true).  k = sink cumulative ack.
    set goods {}; set rex {}; set tos {}; set acked {}; set sent {}
    set sum 0.0; set sumsq 0.0
    foreach i [lsort -integer [array names tcp]] {
        set b [$sink($i) set bytes_]
        if {$b >= $hdr} {
            set k [expr {($b - $hdr) / ($P(packet_size) + $hdr)}]
        } else {
            set k 0
        }
        set g [expr {$k * $P(packet_size) * 8.0 / $P(duration) / 1e6}]
        lappend goods [jnum $g]
        lappend acked $k
        lappend rex [$tcp($i) set nrexmitpack_]
        lappend tos [$tcp($i) set nrexmit_]
        lappend sent [$tcp($i) set ndatapack_]
        set sum [expr {$sum + $g}]
        set sumsq [expr {$sumsq + $g * $g}]
    }
    if {$sumsq > 0} {
        set jain [expr {$sum * $sum / ($N * $sumsq)}]
    } else {
        set jain 0.0
    }
    set params {}
    foreach k [lsort [array names P]] {
        lappend params "\"$k\":\"$P($k)\""
    }
    set out "\{\"simulator\":\"ns-2.35\""
    append out ",\"flows\":$N,\"duration_s\":$P(duration),\"seed\":$P(seed)"
    append out ",\"system_goodput_mbps\":[jnum $sum]"
    append out ",\"jain_index\":[jnum $jain]"
    append out ",\"flow_goodput_mbps\":\[[join $goods ,]\]"
    append out ",\"delivered_packets\":\[[join $acked ,]\]"
    append out ",\"sent_packets\":\[[join $sent ,]\]"
    append out ",\"retransmitted_packets\":\[[join $rex ,]\]"
    append out ",\"timeouts\":\[[join $tos ,]\]"
    if {$P(qmon)} {
        append out ",\"bottleneck_drops\":[$qm set pdrops_]"
        append out ",\"bottleneck_departures\":[$qm set pdepartures_]"
        append out ",\"bottleneck_arrivals\":[$qm set parrivals_]"
    } else {
        append out ",\"bottleneck_drops\":null,\"bottleneck_departures\":null"
    }
    if {$P(qmon) >= 2} {
        set ad 0
        foreach i [array names aqm] { incr ad [$aqm($i) set pdrops_] }
        append out ",\"access_drops\":$ad"
    }
    if {$P(trace_cwnd)} {
        append out ",\"cwnd_trace\":\[[join $cwndTrace ,]\]"
    }
    append out ",\"params\":\{[join $params ,]\}\}"
    puts $out
    flush stdout
    exit 0
}

$ns at $P(duration) finish
$ns run
