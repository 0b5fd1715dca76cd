# Shared by the ns-2.35 reference scripts (dumbbell.tcl, red_ecn.tcl, slowcc.tcl):
# `parse_keys $argv` sets the caller's array P from key=value arguments (P holds the
# defaults; an unknown key or a malformed argument exits with status 2), and `jnum`
# prints a number for the scripts' one line of JSON.
proc parse_keys {arguments} {
    upvar P P
    foreach arg $arguments {
        set eq [string first "=" $arg]
        if {$eq < 1} {
            puts stderr "bad argument '$arg' (expected key=value)"
            exit 2
        }
        set k [string range $arg 0 [expr {$eq - 1}]]
        set v [string range $arg [expr {$eq + 1}] end]
        if {![info exists P($k)]} {
            puts stderr "unknown key '$k'; known: [lsort [array names P]]"
            exit 2
        }
        set P($k) $v
    }
}

proc jnum {x} {
    # JSON number with fixed precision
    return [format %.6f $x]
}
