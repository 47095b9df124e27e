#!/usr/bin/perl
# Spans nested apart from ttv, from `ttv --dump --json` on stdin: each
# lane's spans sorted by start (longest first) and nested with a stack,
# where ttv nests them in time order as they come.  Prints per name
# "name<TAB>type<TAB>category calls total self min max mean" (a call inside
# a call of the same name not counted again in total); then per call path
# "path P self".  GROUPED=1: the trace's spans (podtrace's, a syscall
# capture's) are grouped by type, then name, not nested.  SPANS=1: instead,
# every span as "P<TAB>dur<TAB>ts", P its call path (names joined by ;).
use strict; use warnings; use JSON::XS;
my (%spans, $i, %by, %path);
sub count { my ($k, $d, $self) = @_;
	my $b = $by{$k} //= {calls => 0, total => 0, all => 0, self => 0, max => 0};
	$b->{calls}++; $b->{all} += $d; $b->{total} += $d; $b->{self} += $self;
	$b->{min} = $d if !defined $b->{min} || $d < $b->{min};
	$b->{max} = $d if $d > $b->{max};
}
while (<STDIN>) {
	my $e = decode_json($_);
	$i++;
	next if $e->{meta} || !defined $e->{dur} || $e->{unpaired};
	next unless $e->{role} eq "complete" || $e->{role} eq "begin";
	if ($ENV{GROUPED}) {
		my $cat = $e->{category} // "";
		count("$e->{type}\t$e->{type}\t$cat", $e->{dur}, defined $e->{name} ? 0 : $e->{dur});
		$path{$e->{type}} += defined $e->{name} ? 0 : $e->{dur};
		next unless defined $e->{name};
		count("$e->{name}\t$e->{type}\t$cat", $e->{dur}, $e->{dur});
		$path{"$e->{type};" . ($e->{name} =~ s/;/,/gr)} += $e->{dur};
		next;
	}
	push @{$spans{$e->{lane}}}, {start => $e->{ts}, end => $e->{ts} + $e->{dur}, dur => $e->{dur}, i => $i,
		label => $e->{name} // $e->{type}, key => ($e->{name} // $e->{type}) . "\t$e->{type}\t" . ($e->{category} // "")};
}
for my $lane (keys %spans) {
	my @s = sort { $a->{start} <=> $b->{start} || $b->{end} <=> $a->{end} || $a->{i} <=> $b->{i} } @{$spans{$lane}};
	my (@open, %on);
	my $close = sub {
		my $s = pop @open;
		$on{$s->{key}}--;
		my $self = $s->{dur} - ($s->{child} // 0);
		$self = 0 if $self < 0;
		my $b = $by{$s->{key}} //= {calls => 0, total => 0, all => 0, self => 0, max => 0};
		$b->{calls}++; $b->{all} += $s->{dur}; $b->{self} += $self;
		$b->{total} += $s->{dur} unless $on{$s->{key}};
		$b->{min} = $s->{dur} if !defined $b->{min} || $s->{dur} < $b->{min};
		$b->{max} = $s->{dur} if $s->{dur} > $b->{max};
		$path{$s->{path}} += $self;
		print "$s->{path}\t$s->{dur}\t$s->{start}\n" if $ENV{SPANS};
		$open[-1]{child} += $s->{dur} if @open;
	};
	for my $s (@s) {
		$close->() while @open && ($open[-1]{end} <= $s->{start} || $open[-1]{end} < $s->{end});
		$s->{path} = (@open ? "$open[-1]{path};" : "") . ($s->{label} =~ s/;/,/gr);
		$on{$s->{key}}++;
		push @open, $s;
	}
	$close->() while @open;
}
exit if $ENV{SPANS};
for (sort keys %by) {
	my $b = $by{$_};
	print "$_ $b->{calls} $b->{total} $b->{self} $b->{min} $b->{max} ", int($b->{all} / $b->{calls}), "\n";
}
print "path $_ $path{$_}\n" for sort grep { $path{$_} } keys %path;
