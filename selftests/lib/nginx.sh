# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# nginx.sh: the one nginx configuration of the tests and the bench.
#
# nginx_conf DIR LISTEN ROOT [DIRECTIVE...]: write DIR/nginx.conf for an
# unprivileged nginx that stays in the foreground (no master, one worker,
# its pid, log and temporary files under DIR), serving the files of ROOT on
# LISTEN (ADDR:PORT), with the DIRECTIVEs (e.g. "sendfile on;") in its http
# block; print the file's path.
nginx_conf() {
	_nc_dir=$1 _nc_listen=$2 _nc_root=$3
	shift 3
	mkdir -p "$_nc_dir/tmp"
	cat >"$_nc_dir/nginx.conf" <<NGINX
daemon off;
master_process off;
worker_processes 1;
pid $_nc_dir/nginx.pid;
error_log $_nc_dir/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $_nc_dir/tmp/body;
	proxy_temp_path $_nc_dir/tmp/proxy;
	fastcgi_temp_path $_nc_dir/tmp/fastcgi;
	uwsgi_temp_path $_nc_dir/tmp/uwsgi;
	scgi_temp_path $_nc_dir/tmp/scgi;
	$*
	server { listen $_nc_listen; root $_nc_root; }
}
NGINX
	echo "$_nc_dir/nginx.conf"
}
