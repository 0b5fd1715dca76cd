# ns-2.35 dumbbell with a RED (optionally ECN-marking) bottleneck, for cclab's RED/ECN
# cross-check (issue 4).  Same topology and TCP set-up as dumbbell.tcl:
#
#   ns bench/ns2/red_ecn.tcl [key=value ...]
#
# N sources -> R1 -> R2 -> N sinks; R1->R2 is Queue/RED (packet mode: queue_in_bytes_
# and bytes_ false), all other links DropTail.  ecn=1 sets RED's setbit_ true and the
# TCP agents' ecn_ 1 (RFC 3168-style ECT/ECE/CWR in ns-2).  Prints exactly one line of
# JSON at t = duration.  Marks and drops at the bottleneck are counted from a queue
# trace of R1->R2 (dequeued packets with the CE flag; 'd' events), written to
# trace_file and parsed at the end.  See bench/ns2/README.md.

array set P {
    flows 2
    duration 100
    seed 1
    bottleneck_rate 1Mb
    bottleneck_delay 20ms
    access_rate 100Mb
    source_delay 5ms
    sink_delay 5ms
    buffer 25
    access_buffer 1000
    packet_size 1000
    alpha 1.0
    beta 0.5
    stagger 1.0
    window 100000
    ecn 1
    thresh 0
    maxthresh 0
    q_weight -1
    linterm 10
    gentle true
    wait true
    mean_pktsize 500
    targetdelay 0.005
    trace_file /tmp/red_ecn_bottleneck.tr
}
source [file join [file dirname [info script]] common.tcl]
parse_keys $argv
set N $P(flows)

set ns [new Simulator]
ns-random $P(seed)
$defaultRNG seed $P(seed)

Agent/TCP set packetSize_ $P(packet_size)
Agent/TCP set window_ $P(window)
Agent/TCP set maxcwnd_ $P(window)
Agent/TCP set windowOption_ 1
Agent/TCP set increase_num_ $P(alpha)
Agent/TCP set decrease_num_ $P(beta)
Agent/TCP set ecn_ $P(ecn)

Queue/RED set thresh_ $P(thresh)
Queue/RED set maxthresh_ $P(maxthresh)
Queue/RED set q_weight_ $P(q_weight)
Queue/RED set linterm_ $P(linterm)
Queue/RED set gentle_ $P(gentle)
Queue/RED set wait_ $P(wait)
Queue/RED set setbit_ [expr {$P(ecn) ? "true" : "false"}]
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set mean_pktsize_ $P(mean_pktsize)
Queue/RED set targetdelay_ $P(targetdelay)

set r1 [$ns node]
set r2 [$ns node]
$ns simplex-link $r1 $r2 $P(bottleneck_rate) $P(bottleneck_delay) RED
$ns simplex-link $r2 $r1 $P(bottleneck_rate) $P(bottleneck_delay) DropTail
$ns queue-limit $r1 $r2 $P(buffer)
$ns queue-limit $r2 $r1 $P(buffer)
set tf [open $P(trace_file) w]
$ns trace-queue $r1 $r2 $tf

for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 $P(access_rate) $P(source_delay) DropTail
    $ns queue-limit $s($i) $r1 $P(access_buffer)
    $ns queue-limit $r1 $s($i) $P(access_buffer)
    $ns duplex-link $r2 $d($i) $P(access_rate) $P(sink_delay) DropTail
    $ns queue-limit $r2 $d($i) $P(access_buffer)
    $ns queue-limit $d($i) $r2 $P(access_buffer)
}
set redq [[$ns link $r1 $r2] queue]

for {set i 0} {$i < $N} {incr i} {
    set tcp($i) [new Agent/TCP/Sack1]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {double($i) * $P(stagger) / $N}] "$ftp($i) start"
}


proc finish {} {
    global ns P N tcp sink tf redq
    flush $tf
    close $tf
    # bottleneck counters from the queue trace: '-' dequeue with CE ('E' in the
    # flags field), 'd' drop, '+' arrival (tcp data only; ACKs do not cross R1->R2)
    set marks 0; set drops 0; set arrivals 0; set departures 0
    set f [open $P(trace_file) r]
    while {[gets $f line] >= 0} {
        set ev [string index $line 0]
        if {$ev eq "-"} {
            incr departures
            if {[string first "E" [lindex $line 6]] >= 0} { incr marks }
        } elseif {$ev eq "d"} {
            incr drops
        } elseif {$ev eq "+"} {
            incr arrivals
        }
    }
    close $f
    set hdr [Agent/TCP set tcpip_base_hdr_size_]
    set goods {}; set rex {}; set tos {}; set ecnr {}; set sent {}
    set sum 0.0; set sumsq 0.0
    foreach i [lsort -integer [array names tcp]] {
        set b [$sink($i) set bytes_]
        set k [expr {$b >= $hdr ? ($b - $hdr) / ($P(packet_size) + $hdr) : 0}]
        set g [expr {$k * $P(packet_size) * 8.0 / $P(duration) / 1e6}]
        lappend goods [jnum $g]
        lappend rex [$tcp($i) set nrexmitpack_]
        lappend tos [$tcp($i) set nrexmit_]
        lappend ecnr [$tcp($i) set necnresponses_]
        lappend sent [$tcp($i) set ndatapack_]
        set sum [expr {$sum + $g}]
        set sumsq [expr {$sumsq + $g * $g}]
    }
    set jain [expr {$sumsq > 0 ? $sum * $sum / ($N * $sumsq) : 0.0}]
    set params {}
    foreach k [lsort [array names P]] { lappend params "\"$k\":\"$P($k)\"" }
    set out "\{\"simulator\":\"ns-2.35\",\"queue\":\"RED\""
    append out ",\"flows\":$N,\"duration_s\":$P(duration),\"seed\":$P(seed)"
    append out ",\"system_goodput_mbps\":[jnum $sum],\"jain_index\":[jnum $jain]"
    append out ",\"flow_goodput_mbps\":\[[join $goods ,]\]"
    append out ",\"sent_packets\":\[[join $sent ,]\]"
    append out ",\"retransmitted_packets\":\[[join $rex ,]\]"
    append out ",\"timeouts\":\[[join $tos ,]\]"
    append out ",\"ecn_responses\":\[[join $ecnr ,]\]"
    append out ",\"bottleneck_marks\":$marks,\"bottleneck_drops\":$drops"
    append out ",\"bottleneck_arrivals\":$arrivals,\"bottleneck_departures\":$departures"
    append out ",\"red_min_th\":[$redq set thresh_],\"red_max_th\":[$redq set maxthresh_]"
    append out ",\"red_q_weight\":[$redq set q_weight_]"
    append out ",\"params\":\{[join $params ,]\}\}"
    puts $out
    flush stdout
    exit 0
}
$ns at $P(duration) finish
$ns run
