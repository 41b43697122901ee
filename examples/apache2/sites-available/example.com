# The public site and its members-only area.
<VirtualHost *:80>
    ServerName www.example.com
    ServerAlias example.com
    ServerAdmin webmaster@example.com
    DocumentRoot /srv/www/example.com

    <Directory /srv/www/example.com>
        Options Indexes FollowSymLinks MultiViews
        AllowOverride All
        Order allow,deny
        allow from all
    </Directory>

    # Staff pages: a DBM user database with DBM groups.
    <Location /staff>
        AuthType Basic
        AuthName "Staff only"
        AuthBasicProvider dbm
        AuthDBMUserFile /etc/apache2/auth/staff.dbm
        AuthDBMGroupFile /etc/apache2/auth/staff.dbm
        AuthzUserAuthoritative Off
        Require group staff editors
    </Location>

    # The office network may look at the reports without a password.
    <Directory /srv/www/example.com/reports>
        Order deny,allow
        Deny from all
        Allow from 192.0.2.0/24 \
                   198.51.100.7
    </Directory>

    ErrorLog ${APACHE_LOG_DIR}/example.com-error.log
    CustomLog ${APACHE_LOG_DIR}/example.com-access.log combined
</VirtualHost>
