#!/usr/bin/perl
# An ssh ProxyCommand that counts: relays standard input and output to
# HOST:PORT and, at the end, adds the bytes that crossed (both ways) to the
# number in COUNTFILE.  With LIMIT (- for none), it cuts the connection once
# that many bytes have crossed; with DELAY, what the server sends arrives
# that many ms late (a slow link).
# Usage: sshcount.pl HOST PORT COUNTFILE [LIMIT [DELAY]]
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;

my ($host, $port, $countfile, $limit, $delay) = @ARGV;
undef $limit if defined $limit && $limit eq '-';
my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Proto => 'tcp')
    or die "sshcount: cannot connect to $host:$port: $!\n";
my $sel = IO::Select->new(\*STDIN, $s);
my $bytes = 0;    # not yet added to COUNTFILE
my $total = 0;    # all of this connection's
# ssh ends its ProxyCommand with a signal when it is done
$SIG{HUP} = $SIG{TERM} = $SIG{PIPE} = sub { add_up(); exit 0 };
my $open = 2;
OUTER: while ($open) {
    for my $fh ($sel->can_read) {
        my $n = sysread($fh, my $buf, 65536);
        if (!$n) {
            last OUTER if $fh == $s;    # the server closed
            shutdown($s, 1);             # ssh closed its side
            $sel->remove($fh);
            $open--;
            next;
        }
        $bytes += $n;
        $total += $n;
        last OUTER if defined $limit && $total > $limit;
        select(undef, undef, undef, $delay / 1000) if $delay && $fh == $s;
        my $to = $fh == $s ? \*STDOUT : $s;
        for (my $off = 0; $off < $n;) {
            my $w = syswrite($to, $buf, $n - $off, $off);
            last OUTER unless defined $w;
            $off += $w;
        }
    }
}
add_up();

sub add_up {
    my $sum = $bytes;
    $bytes = 0;
    if (open(my $in, '<', $countfile)) {
        $sum += (<$in> // 0);
        close $in;
    }
    open(my $out, '>', $countfile) or die "sshcount: $countfile: $!\n";
    print $out "$sum\n";
    close $out;
}
